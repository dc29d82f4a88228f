/**
 * The scripted MCP server of the Worker tests (test/support/fake-mcp-server.ts), served on a
 * loopback port of this Node process for a Worker run by wrangler, which has no outbound
 * stand-in. It answers only requests carrying `X-Token: <token>`, so a test sees that the header
 * secret it configured by name reached the server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeMcpServer } from "../../support/fake-mcp-server.ts";

export interface McpLoopback {
  port: number;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, on a port the system picks. */
export async function startMcpLoopback(token: string): Promise<McpLoopback> {
  const server = createServer(function serveMcp(req, res) {
    // Node drops what a request listener returns, so a throw in the fake server would be an
    // unhandled rejection (ending this process) while the Worker waits for an answer that never
    // comes; the test reads a 500 that names the failure instead.
    answer(req, res, token).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`mcp-loopback failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Answers one request from the fake server, once its `X-Token` header matches `token`. */
async function answer(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (req.headers["x-token"] !== token) {
    res.writeHead(403, { "content-type": "text/plain" }).end("X-Token is missing or wrong");
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const response = await fakeMcpServer(
    new Request(`http://127.0.0.1${req.url ?? "/"}`, { method: req.method ?? "GET", headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
