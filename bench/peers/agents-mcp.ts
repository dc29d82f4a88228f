/**
 * Peer: Cloudflare's `agents` `createMcpHandler` (agents/mcp/server), stateless, with the
 * SDK v2 server it takes (@modelcontextprotocol/server). It builds a server per request from the
 * factory. A 2025-era request (what the bench sends every server) is served by its stateless
 * legacy path, which answers as an SSE stream: that path takes no option for JSON responses
 * (`responseMode: "json"` applies to 2026-era requests only, and logs a warning at startup).
 * No Durable Object and no compatibility flag beyond toolgate's (nodejs_compat) is needed.
 */

import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import { ECHO_DESCRIPTION, ECHO_NAME, echoInput, echoResult } from "./echo-tool.ts";

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: "agents-mcp-echo", version: "1.0.0" });
    server.registerTool(ECHO_NAME, { description: ECHO_DESCRIPTION, inputSchema: echoInput }, echoResult);
    return server;
  },
  { route: "/mcp" },
);

export default { fetch: handler };
