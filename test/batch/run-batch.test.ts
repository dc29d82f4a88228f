import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../src/config/config.ts";
import { breakers } from "../../src/execution/circuit-breaker.ts";
import type { CallInput } from "../../src/pipeline/types.ts";
import { defineTool } from "../../src/registry/registry.ts";
import { runTestBatch as runBatch } from "../support/dispatch.ts";
import { gatewayTools, registerAll, sleep, Trace } from "../support/gateway-tools.ts";

const trace = new Trace();
const failures = new Map<string, number>();
const base = { sessionId: "sess_batch", env };
const options = { maxParallel: 4, batchTimeoutMs: 10_000 };
const call = (id: string, name: string, args: unknown): CallInput => ({ id, name, arguments: JSON.stringify(args) });
const parse = (content: string) => JSON.parse(content) as Record<string, unknown>;

let unregister: () => void;
beforeAll(() => {
  unregister = registerAll([
    ...gatewayTools("rb", trace, failures),
    defineTool({
      name: "rb_fetch_data",
      toolset: "rb-set",
      schema: z.object({ fail: z.boolean().default(false), rows: z.array(z.number()).default([1, 2, 3]) }),
      handler: async ({ fail, rows }) => {
        trace.enter("fetch_data");
        await sleep(30);
        trace.leave("fetch_data");
        if (fail) throw new Error("source offline");
        return { rows };
      },
    }),
    defineTool({
      name: "rb_summarise",
      toolset: "rb-set",
      dependsOn: ["rb_fetch_data"],
      schema: z.object({}),
      handler: (_args, { dependencyResults }) => {
        trace.enter("summarise");
        trace.leave("summarise");
        return { saw: dependencyResults.get("rb_fetch_data") ?? null };
      },
    }),
    defineTool({
      name: "rb_slow_source",
      toolset: "rb-set",
      schema: z.object({}),
      handler: async () => {
        await sleep(150);
        return { ready: true };
      },
    }),
    defineTool({
      name: "rb_tight",
      toolset: "rb-set",
      dependsOn: ["rb_slow_source"],
      timeoutMs: 100,
      schema: z.object({}),
      handler: (_args, { dependencyResults }) => ({ saw: dependencyResults.get("rb_slow_source") ?? null }),
    }),
    defineTool({
      name: "rb_merge",
      toolset: "rb-set",
      dependsOn: ["rb_fetch_data"],
      schema: z.object({}),
      handler: (_args, { dependencyResults }) => ({ saw: Object.fromEntries(dependencyResults) }),
    }),
    defineTool({
      name: "rb_write",
      toolset: "rb-set",
      writes: ["workspace"],
      schema: z.object({ label: z.string() }),
      handler: async ({ label }) => {
        trace.enter(label);
        await sleep(40);
        trace.leave(label);
        return { wrote: label };
      },
    }),
    defineTool({
      name: "rb_read",
      toolset: "rb-set",
      reads: ["workspace"],
      schema: z.object({ label: z.string() }),
      handler: async ({ label }) => {
        trace.enter(label);
        await sleep(40);
        trace.leave(label);
        return { read: label };
      },
    }),
  ]);
});
afterAll(() => unregister());
afterEach(() => {
  trace.events.length = 0;
  trace.maxRunning = 0;
  failures.clear();
  breakers.reset();
});

describe("parallel dispatch", () => {
  it("keeps the model's order whatever order calls finish in", async () => {
    const outcomes = await runBatch(
      [call("a", "rb_sleep", { ms: 60, label: "a" }), call("b", "rb_sleep", { ms: 5, label: "b" }), call("c", "rb_sleep", { ms: 30, label: "c" })],
      base,
      options,
    );
    expect(outcomes.map((o) => o.callId)).toEqual(["a", "b", "c"]);
    expect(trace.events.filter((e) => e.startsWith("end"))).toEqual(["end b", "end c", "end a"]);
  });

  it("runs calls concurrently but never more than the limit at once", async () => {
    const calls = Array.from({ length: 10 }, (_, i) => call(`c${i}`, "rb_sleep", { ms: 20, label: `c${i}` }));
    const started = Date.now();
    const outcomes = await runBatch(calls, base, { ...options, maxParallel: 3 });
    expect(outcomes.every((o) => o.status === "ok")).toBe(true);
    expect(trace.maxRunning).toBe(3);
    // 10 calls of 20 ms, 3 at a time: 4 waves, far less than 10 in a row.
    expect(Date.now() - started).toBeLessThan(200);
  });

  it("shares no state between concurrent calls of one tool", async () => {
    const calls = Array.from({ length: 10 }, (_, i) => call(`same-${i}`, "rb_sleep", { ms: (i * 7) % 25, label: `arg-${i}` }));
    const outcomes = await runBatch(calls, base, { ...options, maxParallel: 10 });
    outcomes.forEach((outcome, i) => {
      expect(outcome.callId).toBe(`same-${i}`);
      expect(parse(outcome.content)).toEqual({ slept: (i * 7) % 25, callId: `same-${i}`, label: `arg-${i}`, aborted: false });
    });
  });
});

describe("dependencies", () => {
  it("starts a dependent call after its dependency and hands it the parsed result, whatever the emitted order", async () => {
    const outcomes = await runBatch([call("s", "rb_summarise", {}), call("f", "rb_fetch_data", {})], base, options);
    expect(trace.index("start summarise")).toBeGreaterThan(trace.index("end fetch_data"));
    expect(parse(outcomes[0]?.content ?? "")).toEqual({ saw: { rows: [1, 2, 3] } });
    expect(outcomes.map((o) => o.callId)).toEqual(["s", "f"]);
  });

  it("does not run a dependent call whose dependency failed and names the failed call", async () => {
    const outcomes = await runBatch([call("f1", "rb_fetch_data", { fail: true }), call("s1", "rb_summarise", {})], base, options);
    expect(outcomes[1]).toMatchObject({ status: "error", errorCode: "DEPENDENCY_FAILED", attempts: 0 });
    const envelope = parse(outcomes[1]?.content ?? "");
    expect(envelope.error).toContain("call f1");
    expect(envelope.error).toContain("EXECUTION_FAILED");
    expect(trace.events).not.toContain("start summarise");
  });

  it("hands a dependent call each dependency's result by call id, so two calls of one tool do not overwrite each other", async () => {
    const outcomes = await runBatch(
      [call("f-a", "rb_fetch_data", { rows: [1] }), call("f-b", "rb_fetch_data", { rows: [2] }), call("m", "rb_merge", {})],
      base,
      options,
    );
    const saw = parse(outcomes[2]?.content ?? "").saw as Record<string, unknown>;
    expect(saw["f-a"]).toEqual({ rows: [1] });
    expect(saw["f-b"]).toEqual({ rows: [2] });
    // By tool name too, as before (the original's key): the one of the two that finished last.
    expect([{ rows: [1] }, { rows: [2] }]).toContainEqual(saw.rb_fetch_data);
  });

  it("counts a dependent call's deadline and duration from when it starts, not from the wait for its dependency", async () => {
    const outcomes = await runBatch([call("src", "rb_slow_source", {}), call("dep", "rb_tight", {})], base, options);
    // The dependency takes 150 ms, longer than the dependent's own 100 ms limit.
    expect(outcomes[1]?.status).toBe("ok");
    expect(parse(outcomes[1]?.content ?? "")).toEqual({ saw: { ready: true } });
    expect(outcomes[1]?.durationMs).toBeLessThan(100);
  });

  it("runs a dependent call normally when its dependency is not in the batch", async () => {
    const outcomes = await runBatch([call("s2", "rb_summarise", {})], base, options);
    expect(parse(outcomes[0]?.content ?? "")).toEqual({ saw: null });
  });
});

describe("resource ordering", () => {
  it("runs a read after a write of the same resource in the emitted order", async () => {
    await runBatch([call("w", "rb_write", { label: "write" }), call("r", "rb_read", { label: "read" })], base, options);
    expect(trace.index("start read")).toBeGreaterThan(trace.index("end write"));
  });

  it("runs a write after a read emitted before it", async () => {
    await runBatch([call("r", "rb_read", { label: "read" }), call("w", "rb_write", { label: "write" })], base, options);
    expect(trace.index("start write")).toBeGreaterThan(trace.index("end read"));
  });

  it("keeps pure reads parallel", async () => {
    await runBatch([call("r1", "rb_read", { label: "r1" }), call("r2", "rb_read", { label: "r2" }), call("r3", "rb_read", { label: "r3" })], base, options);
    expect(trace.maxRunning).toBe(3);
  });

  it("runs a write even when the write before it failed, since only dependencies pass failures on", async () => {
    const outcomes = await runBatch([call("w1", "rb_write", { label: 5 }), call("w2", "rb_write", { label: "second" })], base, options);
    expect(outcomes.map((o) => o.status)).toEqual(["error", "ok"]);
  });
});

describe("batch deadline", () => {
  it("answers every call by the batch deadline: running ones time out, waiting ones never start", async () => {
    const started = Date.now();
    const outcomes = await runBatch(
      [call("h1", "rb_sleep", { ms: 5_000 }), call("h2", "rb_sleep", { ms: 5_000 }), call("h3", "rb_sleep", { ms: 5_000 })],
      base,
      { maxParallel: 2, batchTimeoutMs: 200 },
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(outcomes.map((o) => o.errorCode)).toEqual(["TOOL_TIMEOUT", "TOOL_TIMEOUT", "TOOL_TIMEOUT"]);
    expect(parse(outcomes[0]?.content ?? "").error).toContain("configured batch deadline: 0.2s");
    expect(parse(outcomes[2]?.content ?? "").error).toContain("did not start");
  });

  it("stops the handler through its signal when the batch deadline is the nearer one", async () => {
    const outcomes = await runBatch([call("h", "rb_hang", {})], base, { maxParallel: 1, batchTimeoutMs: 60 });
    expect(outcomes[0]?.errorCode).toBe("TOOL_TIMEOUT");
    await sleep(10);
    expect(trace.events).toContain("hang saw abort");
  });

  it("uses the environment's settings when a batch passes none", () => {
    expect(loadConfig(env)).toMatchObject({ maxParallelCalls: 4, batchTimeoutMs: 120_000, defaultTimeoutMs: 30_000 });
  });
});
