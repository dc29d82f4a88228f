import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AvailabilityCache, CHECK_FAILURE_GRACE_MS, CHECK_TTL_MS } from "../../src/registry/availability.ts";
import { Registry } from "../../src/registry/registry.ts";
import type { AvailabilityCheck, ToolEntry } from "../../src/registry/types.ts";

let serial = 0;
/** An entry with its own name: the KV level is keyed by tool name and shared by every cache. */
function entryWith(check?: AvailabilityCheck, requiresEnv: string[] = [], name = `probe_${++serial}`): ToolEntry {
  const registry = new Registry();
  registry.register({ name, toolset: "t", schema: z.object({}), handler: () => "", ...(check ? { check } : {}), requiresEnv });
  const entry = registry.get(name);
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

  it("needs only one of requiresAnyEnv's vars, and names them all while none is set", async () => {
    const registry = new Registry();
    registry.register({ name: `any_${++serial}`, toolset: "t", schema: z.object({}), handler: () => "", requiresAnyEnv: ["NOPE_A", "NOPE_B"] });
    const entry = registry.names().map((name) => registry.get(name))[0];
    if (entry === undefined) throw new Error("registration failed");
    const cache = new AvailabilityCache();
    expect(cache.known(entry, env)).toBeUndefined();
    expect(await cache.of(entry, env)).toEqual({ available: false, reason: "missing environment variable: set one of NOPE_A, NOPE_B" });
    expect(await cache.recheck(entry, env)).toMatchObject({ available: false });
    const withB = { ...env, NOPE_B: "set" } as Env;
    expect(cache.known(entry, withB)).toEqual({ available: true });
    expect(await cache.of(entry, withB)).toEqual({ available: true });
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
    const state = await new AvailabilityCache().of(
      entryWith(() => {
        throw new Error("docker not running");
      }),
      env,
    );
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

  it("shares a fresh result with other isolates through KV, without probing again", async () => {
    let calls = 0;
    const check = () => (calls++, true);
    const first = new AvailabilityCache();
    const name = `probe_shared_${++serial}`;
    await first.of(entryWith(check, [], name), env);
    const second = new AvailabilityCache();
    expect(await second.of(entryWith(check, [], name), env)).toMatchObject({ available: true });
    expect(calls).toBe(1);
    expect(second.stats()).toEqual({ memoryHits: 0, kvHits: 1, probes: 0 });
    expect(await env.KV.get(`avail:${name}`, "json")).toMatchObject({ available: true, checkedAt: expect.any(Number) });
  });

  it("judges a KV result by its check time, never using one older than 30 s", async () => {
    const name = `probe_old_${++serial}`;
    await env.KV.put(`avail:${name}`, JSON.stringify({ available: false, reason: "old news", checkedAt: Date.now() - CHECK_TTL_MS - 1 }));
    let calls = 0;
    const state = await new AvailabilityCache().of(
      entryWith(() => (calls++, true), [], name),
      env,
    );
    expect(state.available).toBe(true);
    expect(calls).toBe(1);
  });

  it("probes on an admin's re-check even when both levels hold a fresh result", async () => {
    let healthy = true;
    const cache = new AvailabilityCache();
    const entry = entryWith(() => healthy);
    await cache.of(entry, env);
    healthy = false;
    expect((await cache.of(entry, env)).available).toBe(true);
    // The grace window still applies: the last success was moments ago.
    expect((await cache.recheck(entry, env)).available).toBe(true);
    expect(cache.stats().probes).toBe(2);
  });

  it("forgets cached results when invalidated", async () => {
    let calls = 0;
    const cache = new AvailabilityCache();
    const entry = entryWith(() => (calls++, false));
    await cache.of(entry, env);
    cache.invalidate();
    // The KV level still holds the result, judged fresh by its check time.
    await cache.of(entry, env);
    expect(calls).toBe(1);
    await cache.recheck(entry, env);
    expect(calls).toBe(2);
  });

  it("does not make other requests wait forever on a refresh whose request is gone", async () => {
    let probes = 0;
    const entry = entryWith(() => (probes++, true));
    const cache = new AvailabilityCache(undefined, 100);
    // The first refresh never ends: its KV read hangs, as I/O does when its request is cancelled.
    // biome-ignore lint/plugin/no-double-cast: a fake KV whose reads and writes never settle
    const hung = { ...env, KV: { get: () => new Promise(() => {}), put: () => new Promise(() => {}) } } as unknown as Env;
    void cache.of(entry, hung);
    expect(await cache.of(entry, env)).toMatchObject({ available: true });
    expect(probes).toBe(1);
    // The result is cached now, so the lost refresh holds nobody up any more.
    expect(cache.known(entry, env)).toMatchObject({ available: true });
  });
});
