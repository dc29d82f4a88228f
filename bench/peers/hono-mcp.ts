/**
 * Peer: `@hono/mcp`'s Streamable HTTP transport with the official SDK's McpServer, stateless
 * (no session id) and with JSON responses (`enableJsonResponse`).
 *
 * A server and transport per request, as the SDK's stateless examples do: one shared stateless
 * transport (the @hono/mcp README's single-connection pattern) maps responses by JSON-RPC id,
 * so two clients' concurrent requests with the same id would receive each other's answers.
 */
import { StreamableHTTPTransport } from "@hono/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Hono } from "hono";
import { ECHO_DESCRIPTION, ECHO_NAME, echoInput, echoResult } from "./echo-tool.ts";

const app = new Hono();

app.post("/mcp", async function mcp(c) {
  const server = new McpServer({ name: "hono-mcp-echo", version: "1.0.0" });
  server.registerTool(ECHO_NAME, { description: ECHO_DESCRIPTION, inputSchema: echoInput }, echoResult);
  const transport = new StreamableHTTPTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c);
});

export default app;
