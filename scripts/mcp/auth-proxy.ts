/**
 * A loopback forwarding proxy that adds `Authorization: Bearer <key>` to every request. The
 * official conformance suite cannot send a key, and /mcp requires one; the proxy stands in for
 * a configured client. Everything else (Host and Origin included, which the DNS-rebinding
 * scenario sets on purpose) is forwarded unchanged, and responses stream back as they come.
 */
import { createServer, request, type Server } from "node:http";

export interface AuthProxy {
  url: URL;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` and forwards to `target` with the key added. */
export function startAuthProxy(port: number, target: URL, key: string): Promise<AuthProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`proxy: ${error.message}`);
    });
    incoming.pipe(forwarded);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () =>
      resolve({
        url: new URL(`http://127.0.0.1:${port}`),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}
