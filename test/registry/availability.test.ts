import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AvailabilityCache, CHECK_FAILURE_GRACE_MS, CHECK_TTL_MS } from "../../src/registry/availability.ts";
import { Registry } from "../../src/registry/registry.ts";
import type { AvailabilityCheck, ToolEntry } from "../../src/registry/types.ts";

function entryWith(check?: AvailabilityCheck, requiresEnv: string[] = []): ToolEntry {
  const registry = new Registry();
  registry.register({ name: "probe", toolset: "t", schema: z.object({}), handler: () => "", ...(check ? { check } : {}), requiresEnv });
  const entry = registry.get("probe");
  if (entry === undefined) throw new Error("registration failed");
  return entry;
}

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("availability", () => {
  it("reports a tool without a check or required vars as available", async () => {
    expect(await new AvailabilityCache().of(entryWith(), env)).toEqual({ available: true });
  });

  it("reports missing required env vars by name, unlike the original which only listed them", async () => {
    const state = await new AvailabilityCache().of(entryWith(undefined, ["NOPE_ONE", "MAX_TOOL_CALLS", "NOPE_TWO"]), env);
    expect(state).toEqual({ available: false, reason: "missing required environment variables: NOPE_ONE, NOPE_TWO" });
  });

  it("caches a check's result for 30 seconds, then probes again", async () => {
    const time = clock();
    let calls = 0;
    const cache = new AvailabilityCache(time.now);
    const entry = entryWith(() => (calls++, true));
    await cache.of(entry, env);
    time.advance(CHECK_TTL_MS - 1);
    await cache.of(entry, env);
    expect(calls).toBe(1);
    time.advance(1);
    await cache.of(entry, env);
    expect(calls).toBe(2);
  });

  it("counts a throwing check as unavailable and says why", async () => {
    const state = await new AvailabilityCache().of(entryWith(() => { throw new Error("docker not running"); }), env);
    expect(state.available).toBe(false);
    expect(state.reason).toBe("its availability check failed: docker not running");
    expect(typeof state.checkedAt).toBe("number");
  });

  it("treats a failure within 60 s of the last success as transient and does not cache it", async () => {
    const time = clock();
    let healthy = true;
    let calls = 0;
    const cache = new AvailabilityCache(time.now);
    const entry = entryWith(() => (calls++, healthy));
    await cache.of(entry, env);
    healthy = false;
    time.advance(CHECK_TTL_MS);
    expect((await cache.of(entry, env)).available).toBe(true);
    expect((await cache.of(entry, env)).available).toBe(true);
    expect(calls).toBe(3);
    time.advance(CHECK_FAILURE_GRACE_MS);
    expect(await cache.of(entry, env)).toMatchObject({ available: false, reason: "its availability check returned false" });
  });

  it("runs a due check once for concurrent requests", async () => {
    let calls = 0;
    const cache = new AvailabilityCache();
    const entry = entryWith(async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return true;
    });
    const states = await Promise.all(Array.from({ length: 10 }, () => cache.of(entry, env)));
    expect(calls).toBe(1);
    expect(states.every((s) => s.available)).toBe(true);
  });

  it("forgets cached results when invalidated", async () => {
    let calls = 0;
    const cache = new AvailabilityCache();
    const entry = entryWith(() => (calls++, false));
    await cache.of(entry, env);
    cache.invalidate();
    await cache.of(entry, env);
    expect(calls).toBe(2);
  });
});
