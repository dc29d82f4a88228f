import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type GatewayConfig, loadConfig } from "../../src/config/config.ts";
import type { ErrorEnvelope } from "../../src/errors/error-envelope.ts";
import { backoffMs, baseBackoffMs, retryAfterMs } from "../../src/execution/backoff.ts";
import { breakers } from "../../src/execution/circuit-breaker.ts";
import { type CallContext, dispatchCall } from "../support/dispatch.ts";
import { gatewayTools, registerAll, sleep, Trace } from "../support/gateway-tools.ts";

const trace = new Trace();
const failures = new Map<string, number>();
const defaults = loadConfig(env);
const config = (
  over: Partial<{ retry: Partial<GatewayConfig["retry"]>; breaker: Partial<GatewayConfig["breaker"]>; defaultTimeoutMs: number }> = {},
): GatewayConfig => ({
  ...defaults,
  ...(over.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: over.defaultTimeoutMs }),
  retry: { ...defaults.retry, backoffBaseMs: 20, ...over.retry },
  breaker: { ...defaults.breaker, ...over.breaker },
});
const ctx = (over: Partial<CallContext> = {}): CallContext => ({ callId: "call_x", sessionId: "sess_exec", env, config: config(), ...over });
const envelope = (content: string) => JSON.parse(content) as ErrorEnvelope;

let unregister: () => void;
beforeAll(() => {
  unregister = registerAll(gatewayTools("ex", trace, failures));
});
afterAll(() => unregister());
afterEach(() => {
  trace.events.length = 0;
  failures.clear();
  breakers.reset();
});

describe("deadlines", () => {
  it("answers TOOL_TIMEOUT naming the tool, the elapsed and the configured time, and aborts the handler's signal", async () => {
    const started = Date.now();
    const out = await dispatchCall("ex_hang", {}, ctx());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(out).toMatchObject({ status: "error", errorCode: "TOOL_TIMEOUT", attempts: 1 });
    const body = envelope(out.content);
    expect(body.error).toMatch(/^Tool 'ex_hang' timed out after 0\.1\d*s \(configured timeout: 0\.15s\)\.$/);
    expect(body.suggestion).toMatch(/Narrow the request/);
    await sleep(5);
    expect(trace.events).toContain("hang saw abort");
  });

  it("answers TOOL_TIMEOUT without running a handler whose deadline passed before it started, and leaves its breaker alone", async () => {
    // A synchronous handler would beat any deadline timer: only the check before the start stops it.
    const spent = { batch: { deadlineAt: Date.now() - 1, timeoutMs: 50 }, config: config({ breaker: { failureThreshold: 2 } }) };
    for (let i = 0; i < 3; i++) {
      const out = await dispatchCall("ex_broken", {}, ctx(spent));
      expect(out).toMatchObject({ status: "error", errorCode: "TOOL_TIMEOUT", attempts: 0 });
    }
    expect(trace.events).not.toContain("broken ran");
    const ran = await dispatchCall("ex_broken", {}, ctx({ config: spent.config }));
    expect(ran).toMatchObject({ errorCode: "EXECUTION_FAILED", attempts: 1 });
    expect(trace.events).toContain("broken ran");
  });

  it("answers TOOL_TIMEOUT, never ok, when synchronous work finishes past the deadline, naming what the tool writes", async () => {
    const out = await dispatchCall("ex_overrun", { path: "notes/todo.md" }, ctx());
    expect(trace.events).toContain("overrun finished");
    expect(out).toMatchObject({ status: "error", errorCode: "TOOL_TIMEOUT", attempts: 1 });
    const body = envelope(out.content);
    expect(body.error).toMatch(/^Tool 'ex_overrun' finished after its deadline, in \d+(\.\d+)?s \(configured timeout: 0.01s\); its result was withheld\./);
    expect(body.error).toContain("Its writes may have happened anyway: workspace:notes/todo.md.");
    expect(body.retryable).toBe(false);
  });

  it("says a late tool that declares no writes changed nothing, and may be retried", async () => {
    const out = await dispatchCall("ex_overrun", {}, ctx());
    expect(out).toMatchObject({ status: "error", errorCode: "TOOL_TIMEOUT" });
    const body = envelope(out.content);
    expect(body.error).toContain("It declares no writes, so nothing was changed.");
    expect(body.retryable).toBe(true);
  });

  it("times out a handler that ignores its signal", async () => {
    const out = await dispatchCall("ex_hang", { honourSignal: false }, ctx());
    expect(out.errorCode).toBe("TOOL_TIMEOUT");
  });

  it("uses default_timeout for a tool that declares none", async () => {
    const out = await dispatchCall("ex_sleep", { ms: 2_000 }, ctx({ config: config({ defaultTimeoutMs: 100 }) }));
    expect(envelope(out.content).error).toContain("configured timeout: 0.1s");
  });

  it("is not disturbed by a handler that throws asynchronously after returning", async () => {
    const out = await dispatchCall("ex_late_throw", {}, ctx());
    expect(out).toMatchObject({ status: "ok", content: '{"returned":true}' });
    await sleep(20);
    expect((await dispatchCall("ex_sleep", { ms: 1 }, ctx())).status).toBe("ok");
  });
});

describe("retries", () => {
  it("retries a retryable failure with backoff and reports the attempts", async () => {
    const started = Date.now();
    const out = await dispatchCall("ex_flaky", { key: "k1", failTimes: 2 }, ctx());
    expect(out).toMatchObject({ status: "ok", attempts: 3 });
    expect(JSON.parse(out.content)).toEqual({ key: "k1", attempt: 3 });
    // Waits of 20 ms and 30 ms (base 20, growth 1.5), each plus up to 20% jitter.
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it("grows the waits by the configured factor", async () => {
    const started = Date.now();
    // Base 20 ms and factor 8: waits of 20 and 160 ms, where the default 1.5 would wait 20 and 30.
    const out = await dispatchCall("ex_flaky", { key: "k_factor", failTimes: 2 }, ctx({ config: config({ retry: { backoffFactor: 8 } }) }));
    expect(out).toMatchObject({ status: "ok", attempts: 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
  });

  it("lets a tool's retry.backoffFactor override the configured one", async () => {
    const flaky = gatewayTools("exf", trace, failures).find((spec) => spec.name === "exf_flaky");
    if (flaky === undefined) throw new Error("gatewayTools no longer makes exf_flaky");
    const unregisterSlow = registerAll([{ ...flaky, retry: { backoffFactor: 8 } }]);
    try {
      const started = Date.now();
      const out = await dispatchCall("exf_flaky", { key: "k_tool_factor", failTimes: 2 }, ctx());
      expect(out).toMatchObject({ status: "ok", attempts: 3 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    } finally {
      unregisterSlow();
    }
  });

  it("gives up after max_attempts with the last failure", async () => {
    const out = await dispatchCall("ex_flaky", { key: "k2", failTimes: 5 }, ctx());
    expect(out).toMatchObject({ status: "error", errorCode: "EXECUTION_FAILED", attempts: 3 });
    expect(failures.get("k2")).toBe(3);
  });

  it("never retries a non-retryable error, a business error or a validation error", async () => {
    expect((await dispatchCall("ex_broken", {}, ctx())).attempts).toBe(1);
    expect((await dispatchCall("ex_typed_fail", {}, ctx())).attempts).toBe(1);
    const invalid = await dispatchCall("ex_flaky", { key: 3 }, ctx());
    expect(invalid).toMatchObject({ errorCode: "INVALID_ARGUMENTS", attempts: 0 });
  });

  it("retries upstream 503s from ctx.fetch", async () => {
    const unavailable = await dispatchCall("ex_upstream", { path: "/status/503" }, ctx());
    expect(unavailable).toMatchObject({ errorCode: "UPSTREAM_ERROR", attempts: 3 });
    expect(envelope(unavailable.content).error).toContain("HTTP 503");
  });

  it("retries network errors from ctx.fetch", async () => {
    // Miniflare answers a failing outbound handler with a 500, so the network itself (the
    // platform's fetch) is made to fail here; everything from ctx.fetch inward is ours.
    const network = vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("Network connection lost."));
    const reset = await dispatchCall("ex_upstream", { path: "/reset" }, ctx());
    network.mockRestore();
    expect(reset).toMatchObject({ errorCode: "UPSTREAM_ERROR", attempts: 3 });
    expect(envelope(reset.content).error).toBe("Tool 'ex_upstream' could not reach upstream.test: Network connection lost.");
  });

  it("hands other upstream statuses to the tool without retrying", async () => {
    const out = await dispatchCall("ex_upstream", { path: "/status/404" }, ctx());
    expect(out).toMatchObject({ status: "ok", attempts: 1 });
    expect(JSON.parse(out.content)).toMatchObject({ status: 404 });
  });

  it("honours Retry-After from a 429", async () => {
    const started = Date.now();
    const out = await dispatchCall("ex_upstream", { path: "/status/429?retry_after=1" }, ctx({ config: config({ retry: { maxAttempts: 2 } }) }));
    expect(out).toMatchObject({ errorCode: "RATE_LIMITED", attempts: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("stops retrying when the wait would pass the deadline, and passes the wait on to the model", async () => {
    const started = Date.now();
    const out = await dispatchCall("ex_upstream", { path: "/status/429?retry_after=60" }, ctx());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(out).toMatchObject({ errorCode: "RATE_LIMITED", attempts: 1 });
    expect(envelope(out.content)).toMatchObject({ retryable: true, retry_after_ms: 60_000, suggestion: expect.stringContaining("60s") });
  });

  it("keeps every attempt inside the call's deadline", async () => {
    const started = Date.now();
    const out = await dispatchCall(
      "ex_flaky",
      { key: "k3", failTimes: 10 },
      ctx({ config: config({ defaultTimeoutMs: 120, retry: { maxAttempts: 10, backoffBaseMs: 50 } }) }),
    );
    expect(Date.now() - started).toBeLessThan(300);
    expect(out.status).toBe("error");
    expect(out.attempts).toBeGreaterThanOrEqual(2);
    expect(out.attempts).toBeLessThan(10);
  });

  it("computes the documented backoff: 1.5 s, 2.25 s, 3.375 s plus at most 20% jitter", () => {
    const { backoffBaseMs, backoffFactor } = defaults.retry;
    expect([1, 2, 3].map((n) => baseBackoffMs(n, backoffBaseMs, backoffFactor))).toEqual([1_500, 2_250, 3_375]);
    expect(backoffMs(1, backoffBaseMs, backoffFactor, () => 0)).toBe(1_500);
    expect(backoffMs(3, backoffBaseMs, backoffFactor, () => 1)).toBe(4_050);
  });

  it("grows each wait by the factor it is given", () => {
    expect([1, 2, 3].map((n) => baseBackoffMs(n, 1_000, 2))).toEqual([1_000, 2_000, 4_000]);
    expect([1, 2, 3].map((n) => baseBackoffMs(n, 1_000, 1))).toEqual([1_000, 1_000, 1_000]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("2")).toBe(2_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});

describe("circuit breakers", () => {
  const fast = { breaker: { failureThreshold: 3, cooldownMs: 150 }, retry: { maxAttempts: 1 } };

  it("opens a tool's circuit after N consecutive failures and refuses calls with retry_after_ms", async () => {
    for (let i = 0; i < 3; i++) expect((await dispatchCall("ex_broken", {}, ctx({ config: config(fast) }))).errorCode).toBe("EXECUTION_FAILED");
    const refused = await dispatchCall("ex_broken", {}, ctx({ config: config(fast) }));
    expect(refused).toMatchObject({ errorCode: "TOOL_UNAVAILABLE", attempts: 0 });
    expect(envelope(refused.content)).toMatchObject({ stage: "availability", retryable: true });
    expect(envelope(refused.content).retry_after_ms).toBeGreaterThan(0);
    expect(envelope(refused.content).retry_after_ms).toBeLessThanOrEqual(150);
    expect(trace.events.filter((e) => e === "broken ran")).toHaveLength(3);
  });

  it("lets one probe through after the cooldown; its failure re-opens the circuit", async () => {
    for (let i = 0; i < 3; i++) await dispatchCall("ex_broken", {}, ctx({ config: config(fast) }));
    await sleep(160);
    expect((await dispatchCall("ex_broken", {}, ctx({ config: config(fast) }))).errorCode).toBe("EXECUTION_FAILED");
    expect(trace.events.filter((e) => e === "broken ran")).toHaveLength(4);
    expect((await dispatchCall("ex_broken", {}, ctx({ config: config(fast) }))).errorCode).toBe("TOOL_UNAVAILABLE");
  });

  it("admits a single probe at a time and closes on its success", async () => {
    for (let i = 0; i < 3; i++) await dispatchCall("ex_flaky", { key: "p", failTimes: 3 }, ctx({ config: config(fast) }));
    await sleep(160);
    const [probe, during] = await Promise.all([
      dispatchCall("ex_flaky", { key: "p", failTimes: 3, delayMs: 50 }, ctx({ config: config(fast) })),
      sleep(1).then(() => dispatchCall("ex_flaky", { key: "p", failTimes: 3 }, ctx({ config: config(fast) }))),
    ]);
    expect(probe.status).toBe("ok");
    expect(during.errorCode).toBe("TOOL_UNAVAILABLE");
    expect((await dispatchCall("ex_flaky", { key: "p", failTimes: 3 }, ctx({ config: config(fast) }))).status).toBe("ok");
  });

  it("does not count the caller's mistakes against a tool", async () => {
    for (let i = 0; i < 5; i++) await dispatchCall("ex_flaky", { key: 1 }, ctx({ config: config(fast) }));
    for (let i = 0; i < 5; i++) await dispatchCall("ex_typed_fail", {}, ctx({ config: config(fast) }));
    expect((await dispatchCall("ex_typed_fail", {}, ctx({ config: config(fast) }))).errorCode).toBe("UPSTREAM_ERROR");
  });

  it("opens an upstream host's circuit for every tool that calls it", async () => {
    for (let i = 0; i < 3; i++) await dispatchCall("ex_upstream", { path: "/status/502" }, ctx({ config: config(fast) }));
    const refused = await dispatchCall("ex_upstream2", { path: "/ok" }, ctx({ config: config(fast) }));
    expect(refused.errorCode).toBe("TOOL_UNAVAILABLE");
    expect(envelope(refused.content).error).toContain("its upstream upstream.test failed 3 times in a row");
    expect(envelope(refused.content)).toMatchObject({ retryable: true, retry_after_ms: expect.any(Number) });
    await sleep(160);
    const probe = await dispatchCall("ex_upstream2", { path: "/ok" }, ctx({ config: config(fast) }));
    expect(probe.status).toBe("ok");
  });
});
