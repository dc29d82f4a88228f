/**
 * The reference: a bare Hono route that answers a `tools/call` of echo with the bytes an MCP
 * server would, without reading the request or running anything. What a server costs beyond it
 * is its own work.
 */
import { Hono } from "hono";

const ANSWER = JSON.stringify({ result: { content: [{ type: "text", text: "hi" }] }, jsonrpc: "2.0", id: 1 });

const app = new Hono();

app.post("/mcp", function bare(c) {
  return c.body(ANSWER, 200, { "content-type": "application/json" });
});

export default app;
