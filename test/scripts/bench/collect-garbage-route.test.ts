/**
 * scripts/bench/collect-garbage-route.ts: the full collection that follows every measured round
 * runs gc() and answers 204; without gc() it says which V8 flag is missing instead of pretending;
 * every other request passes through to the Worker's own routes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { COLLECT_GARBAGE_PATH, EXPOSE_GC_FLAG, serveCollectGarbage } from "../../../scripts/bench/collect-garbage-route.ts";

const globals = globalThis as { gc?: () => void };
const original = globals.gc;
afterEach(() => {
  if (original === undefined) delete globals.gc;
  else globals.gc = original;
});

const request = (path: string, method = "POST") => new Request(`http://127.0.0.1${path}`, { method });

describe("serveCollectGarbage", () => {
  it("leaves every other path, a look-alike included, to the Worker's routes", () => {
    expect(serveCollectGarbage(request("/mcp"))).toBeUndefined();
    expect(serveCollectGarbage(request(`/x${COLLECT_GARBAGE_PATH}`))).toBeUndefined();
  });

  it("collects once per request and answers 204", () => {
    let collections = 0;
    globals.gc = () => {
      collections += 1;
    };
    const answer = serveCollectGarbage(request(COLLECT_GARBAGE_PATH));
    expect(answer?.status).toBe(204);
    expect(collections).toBe(1);
  });

  it("answers 501 naming the flag when gc() is not defined, so the bench stops instead of reporting a collection that did not run", async () => {
    delete globals.gc;
    const answer = serveCollectGarbage(request(COLLECT_GARBAGE_PATH));
    expect(answer?.status).toBe(501);
    expect(((await answer?.json()) as { error: string }).error).toContain(EXPOSE_GC_FLAG);
  });

  it("refuses a GET with 405 and the method it takes", () => {
    globals.gc = () => {};
    const answer = serveCollectGarbage(request(COLLECT_GARBAGE_PATH, "GET"));
    expect(answer?.status).toBe(405);
    expect(answer?.headers.get("allow")).toBe("POST");
  });
});
