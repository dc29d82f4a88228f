import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { api } from "../support/api.ts";
import { testParts } from "../support/dispatch.ts";
import { gatewayTools, registerAll, Trace } from "../support/gateway-tools.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

interface Batch {
  results: { id: string; status: string; error_code: string | null; attempts: number; message: { content: string } }[];
}

const trace = new Trace();
let unregister: () => void;
beforeAll(() => {
  unregister = registerAll(gatewayTools("hg", trace, new Map()));
});
afterAll(() => unregister());

const sleepCall = (i: number, ms = 50) => openaiCall(`s${i}`, "hg_sleep", { ms, label: `s${i}` });

describe("POST /v1/tool-calls with the gateway layer", () => {
  it("runs the batch with the requested parallelism and keeps order", async () => {
    trace.maxRunning = 0;
    const started = Date.now();
    const body = await json<Batch>(await api("/v1/tool-calls", { body: { max_parallel_calls: 2, tool_calls: [0, 1, 2, 3].map((i) => sleepCall(i)) } }));
    expect(body.results.map((r) => r.id)).toEqual(["s0", "s1", "s2", "s3"]);
    expect(trace.maxRunning).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("defaults to MAX_PARALLEL_CALLS (4)", async () => {
    trace.maxRunning = 0;
    await api("/v1/tool-calls", { body: { tool_calls: [0, 1, 2, 3, 4, 5].map((i) => sleepCall(i, 20)) } });
    expect(trace.maxRunning).toBe(4);
  });

  it("refuses parallelism above the cap, naming the field and the cap", async () => {
    const res = await api("/v1/tool-calls", { body: { max_parallel_calls: 17, tool_calls: [sleepCall(0)] } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ issues: [{ path: "max_parallel_calls", message: expect.stringContaining("at most 16") }] });
  });

  it("reports attempts per call, and a timeout's message and suggestion in the text the model reads", async () => {
    const body = await json<Batch>(await api("/v1/tool-calls", { body: { tool_calls: [sleepCall(0, 1), openaiCall("h", "hg_hang", "{}")] } }));
    expect(body.results.map((r) => [r.status, r.attempts])).toEqual([
      ["ok", 1],
      ["error", 1],
    ]);
    const content = body.results[1]?.message.content ?? "";
    expect(content).toContain("timed out after");
    expect(content).toContain("Narrow the request");
  });

  it("answers 500 MISCONFIGURED naming the key when the vars are bad", async () => {
    const res = await createApp(testParts).request("/v1/tools", {}, { ...env, MAX_TOOL_CALLS: "lots" });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error_code: "MISCONFIGURED", error: expect.stringContaining("MAX_TOOL_CALLS must be") });
  });
});
