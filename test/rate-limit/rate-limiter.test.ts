import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal.ts";
import { loadConfig } from "../../src/config/config.ts";
import { chargeCalls } from "../../src/rate-limit/charge-calls.ts";

const limiter = (key: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
const bucket = (limit: number, name = "key") => ({ bucket: name, limit, windowMs: 60_000 });
const principal = (keyId: string, rateLimitPerMinute: number | null = null): Principal => ({
  keyId,
  name: keyId,
  role: "agent",
  toolsets: null,
  policy: { mode: "deny", patterns: [] },
  rateLimitPerMinute,
  scopes: [],
});

describe("RateLimiter", () => {
  it("allows up to the limit in a window and refuses the next call with the wait", async () => {
    const stub = limiter("rl-basic");
    const at = 120_000 + 10_000;
    const verdicts = await stub.consume([[bucket(3)], [bucket(3)], [bucket(3)], [bucket(3)]], at);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
    // 50 s to the next window, then a third of it for the 3 calls carried over to decay by one.
    expect(verdicts[3]).toEqual({ allowed: false, bucket: "key", limit: 3, retryAfterMs: 70_000 });
    const retried = await stub.consume([[bucket(3)]], at + 70_000);
    expect(retried[0]?.allowed).toBe(true);
  });

  it("slides: the previous window's calls count in proportion to their overlap", async () => {
    const stub = limiter("rl-slide");
    await stub.consume(
      [[bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)], [bucket(10)]],
      60_000,
    );
    // A quarter into the next window, 75% of the previous 10 still count: room for 2 more.
    const next = await stub.consume([[bucket(10)], [bucket(10)], [bucket(10)]], 135_000);
    expect(next.map((v) => v.allowed)).toEqual([true, true, false]);
  });

  it("charges nothing for a call refused by any of its buckets", async () => {
    const stub = limiter("rl-all-or-nothing");
    await stub.consume([[bucket(1, "tool:a")]], 1_000);
    const verdicts = await stub.consume(
      [
        [bucket(5), bucket(1, "tool:a")],
        [bucket(5), bucket(5, "tool:b")],
      ],
      2_000,
    );
    expect(verdicts.map((v) => v.allowed)).toEqual([false, true]);
    const after = await stub.consume([[bucket(2)], [bucket(2)]], 3_000);
    // Only the one allowed call was charged to "key": one more fits under 2.
    expect(after.map((v) => v.allowed)).toEqual([true, false]);
  });

  it("counts concurrent requests exactly: one object per key serialises them", async () => {
    const stub = limiter("rl-concurrent");
    const verdicts = await Promise.all(Array.from({ length: 25 }, () => stub.consume([[bucket(10)]], 5_000)));
    expect(verdicts.filter(([v]) => v?.allowed === true)).toHaveLength(10);
  });

  it("keeps its counters when the object is evicted", async () => {
    const stub = limiter("rl-evict");
    await stub.consume([[bucket(2)], [bucket(2)]], 7_000);
    await evictDurableObject(stub);
    expect((await limiter("rl-evict").consume([[bucket(2)]], 8_000))[0]?.allowed).toBe(false);
  });
});

describe("chargeCalls", () => {
  const config = loadConfig(env);

  it("refuses calls past the per-tool limit with RATE_LIMITED and leaves other tools alone", async () => {
    const tight = { ...config, rateLimit: { perMinute: 100, perToolPerMinute: 2 } };
    const verdicts = await chargeCalls(env, principal("rl-tools"), ["echo", "echo", "echo", "current_time"], tight);
    expect(verdicts.slice(0, 2)).toEqual([undefined, undefined]);
    expect(verdicts[2]).toMatchObject({ kind: "rate_limited", name: "echo", scope: "tool", limit: 2 });
    expect(verdicts[3]).toBeUndefined();
  });

  it("uses the key's own limit over the default and does not charge calls that will not run", async () => {
    const verdicts = await chargeCalls(env, principal("rl-own", 1), [undefined, "echo", "echo"], config);
    expect(verdicts).toEqual([undefined, undefined, expect.objectContaining({ scope: "key", limit: 1 })]);
  });
});
