/** scripts/bench/load.ts: LoadClient.close, which runs in cleanup after a watchdog or a failure. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LoadClient } from "../../../scripts/bench/load.ts";

let server: Server | undefined;

/** A loopback server that answers "ok", except on /hang, which it never answers. */
async function listen(): Promise<URL> {
  server = createServer((request, response) => {
    if (request.url === "/hang") return;
    response.end("ok");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe("LoadClient.close", () => {
  it("can be called again, at once or after it finished, without throwing", async () => {
    const client = new LoadClient(await listen(), 2);
    expect(await client.send({ method: "GET", path: "/" })).toEqual({ status: 200, body: "ok" });
    await Promise.all([client.close(), client.close()]);
    await expect(client.close()).resolves.toBeUndefined();
  });

  it("drops a request the server never answers after its grace time, and resolves", async () => {
    const client = new LoadClient(await listen(), 2);
    const hung = client.send({ method: "GET", path: "/hang" });
    const failed = hung.then(
      () => "answered",
      () => "failed",
    );
    const t0 = performance.now();
    await client.close(200);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(await failed).toBe("failed");
    await expect(client.close()).resolves.toBeUndefined();
  });

  it("refuses new requests once closed, and a round in progress then fails instead of hanging", async () => {
    const client = new LoadClient(await listen(), 2);
    const round = client.round({ method: "GET", path: "/" }, { concurrency: 2, durationMs: 10_000 });
    const outcome = round.then(
      () => "finished",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.close(100);
    expect(await outcome).toBe("failed");
    await expect(client.send({ method: "GET", path: "/" })).rejects.toThrow();
  });
});
