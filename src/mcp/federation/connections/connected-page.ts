/**
 * The page a browser lands on once a per-user connection is stored: it says it worked and what
 * to do next. Plain HTML with no script or outside resource (the CSP allows none); an upstream's
 * name is one of `[A-Za-z0-9_-]` (server-config.ts, source-config.ts), so it needs no escaping.
 */
import type { Context } from "hono";
import { describeUpstream } from "./upstream.ts";

export function connectedPage(c: Context<{ Bindings: Env }>, upstream: string): Response {
  const { name: server, kind } = describeUpstream(upstream);
  c.header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'");
  c.header("cache-control", "no-store");
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connected to ${server}</title></head>` +
      `<body style="font-family:system-ui;max-width:36em;margin:3em auto"><h1>Connected to ${server}</h1>` +
      `<p>Your own account at ${kind === "mcp_server" ? "MCP server" : "API"} <b>${server}</b> is now connected to toolgate. Calls you make to its tools act as you.</p>` +
      `<p>You can close this page and ask your agent to try again. To disconnect, use <a href="/chat/connections">your connections</a>.</p></body></html>`,
  );
}
