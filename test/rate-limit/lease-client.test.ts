import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LEASE_WAIT_MS, LeaseClient, type LimiterStub } from "../../src/rate-limit/lease-client.ts";
import { LEASE_MAX_MS } from "../../src/rate-limit/rate-limiter.ts";

const WINDOW = 60_000;
const bucket = (limit: number, name = "key") => ({ bucket: name, limit, windowMs: WINDOW });

/** The key's real object; `trips` counts the round trips made to it. */
function limiterFor(name: string): { stub: () => LimiterStub; trips: () => number } {
  const real = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
  let trips = 0;
  const counted: LimiterStub = {
    lease(calls, returns, now) {
      trips += 1;
      return real.lease(calls, returns, now);
    },
  };
  return { stub: () => counted, trips: () => trips };
}

/** A clock the test moves; both "isolates" and the object read it. */
function fakeClock(start: number) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** Charges one call at a time to `client` until one is refused; returns how many were allowed. */
async function drain(client: LeaseClient, key: string, stub: () => LimiterStub, buckets: ReturnType<typeof bucket>[], max = 10_000): Promise<number> {
  for (let n = 0; n < max; n++) {
    const [verdict] = await client.charge(key, stub, [buckets]);
    if (verdict?.allowed !== true) return n;
  }
  return max;
}

describe("LeaseClient", () => {
  it("lets two isolates together spend exactly the limit, with far fewer round trips than calls", async () => {
    const clock = fakeClock(10 * WINDOW + 1_000);
    const { stub, trips } = limiterFor("lease-two-isolates");
    const a = new LeaseClient({ clock: clock.now });
    const b = new LeaseClient({ clock: clock.now });
    let allowed = 0;
    let refused = 0;
    // Interleaved and concurrent, as two isolates serving one key would be.
    for (let round = 0; round < 40; round++) {
      const verdicts = await Promise.all([a, b, a, b, a, b].map((client) => client.charge("k", stub, [[bucket(200)]])));
      for (const [verdict] of verdicts) verdict?.allowed === true ? (allowed += 1) : (refused += 1);
    }
    // 240 calls against a limit of 200 within one window: every token is either spent or still
    // held, and nothing beyond the limit is ever allowed.
    expect(allowed + a.held("k", "key") + b.held("k", "key")).toBe(200);
    expect(refused).toBe(240 - allowed);
    expect(allowed).toBeGreaterThanOrEqual(180);
    expect(trips()).toBeLessThan(allowed / 2);
  });

  it("charges the last tenth of the budget call by call, so the final tokens are exact", async () => {
    const clock = fakeClock(20 * WINDOW + 1_000);
    const { stub, trips } = limiterFor("lease-last-tokens");
    const a = new LeaseClient({ clock: clock.now });
    const b = new LeaseClient({ clock: clock.now });
    const fromA = await drain(a, "k", stub, [bucket(100)], 85);
    expect(fromA).toBe(85);
    // Past 90 charged (A's spent and held tokens), the object leases nothing more: each of B's
    // calls is one round trip, and the one that finds the budget spent is refused.
    const before = trips();
    const fromB = await drain(b, "k", stub, [bucket(100)]);
    expect(fromA + fromB + a.held("k", "key")).toBe(100);
    expect(b.held("k", "key")).toBe(0);
    expect(trips() - before).toBe(fromB + 1);
  });

  it("returns an expired lease's unspent tokens, so another isolate can use them", async () => {
    const clock = fakeClock(30 * WINDOW + 1_000);
    const { stub } = limiterFor("lease-return");
    const a = new LeaseClient({ clock: clock.now });
    const b = new LeaseClient({ clock: clock.now });
    // A builds up a rate, then holds a lease of up to a tenth of the limit.
    expect(await drain(a, "k", stub, [bucket(100)], 20)).toBe(20);
    const held = a.held("k", "key");
    expect(held).toBeGreaterThan(0);
    const fromB = await drain(b, "k", stub, [bucket(100)]);
    expect(20 + held + fromB).toBe(100);
    // The lease lapses; A's next call takes one token and gives the rest back.
    clock.advance(LEASE_MAX_MS + 1);
    expect(a.held("k", "key")).toBe(0);
    const [next] = await a.charge("k", stub, [[bucket(100)]]);
    expect(next?.allowed).toBe(true);
    expect(await drain(b, "k", stub, [bucket(100)])).toBe(held - 1);
  });

  /** One isolate that made ten calls at `start` against a generous limit. */
  async function tenCallsAt(name: string, start: number) {
    const clock = fakeClock(start);
    const { stub } = limiterFor(name);
    const client = new LeaseClient({ clock: clock.now });
    for (let n = 0; n < 10; n++) await client.charge("k", stub, [[bucket(1_000)]]);
    return { client, clock };
  }

  it("never lets a lease outlive the window it was charged in", async () => {
    const { client, clock } = await tenCallsAt("lease-window-end", 40 * WINDOW + WINDOW - 600);
    expect(client.held("k", "key")).toBeGreaterThan(0);
    clock.advance(600);
    expect(client.held("k", "key")).toBe(0);
  });

  it("grants no lease in a window's last moments", async () => {
    const { client } = await tenCallsAt("lease-too-late", 50 * WINDOW + WINDOW - 200);
    expect(client.held("k", "key")).toBe(0);
  });

  it("keeps no token of a call the object refused, and reports the refusing bucket and wait", async () => {
    const clock = fakeClock(60 * WINDOW + 30_000);
    const { stub } = limiterFor("lease-refusal");
    const a = new LeaseClient({ clock: clock.now });
    const call = [bucket(1_000), bucket(3, "tool:echo")];
    expect(await drain(a, "k", stub, call)).toBe(3);
    const held = a.held("k", "key");
    expect(held).toBeGreaterThan(0);
    const [refused] = await a.charge("k", stub, [call]);
    // 30 s to the next window, then a third of it for the 3 calls carried over to decay by one.
    expect(refused).toEqual({ allowed: false, bucket: "tool:echo", limit: 3, retryAfterMs: 50_000 });
    expect(a.held("k", "key")).toBe(held);
    // Other tools still run from the key's lease.
    const [other] = await a.charge("k", stub, [[bucket(1_000), bucket(3, "tool:other")]]);
    expect(other?.allowed).toBe(true);
  });

  it("keeps the limits of different keys apart", async () => {
    const clock = fakeClock(70 * WINDOW + 1_000);
    const one = limiterFor("lease-key-one");
    const two = limiterFor("lease-key-two");
    const a = new LeaseClient({ clock: clock.now });
    expect(await drain(a, "one", one.stub, [bucket(30)])).toBe(30);
    expect(await drain(a, "two", two.stub, [bucket(30)])).toBe(30);
  });

  it("does not make other requests wait forever on a round trip whose request is gone", async () => {
    const { stub: real } = limiterFor("lease-gone-request");
    let first = true;
    // The first round trip never answers, as when the request that made it is cancelled.
    const stub = (): LimiterStub => ({
      lease(calls, returns, now) {
        if (first) {
          first = false;
          return new Promise(() => {});
        }
        return real().lease(calls, returns, now);
      },
    });
    const client = new LeaseClient();
    void client.charge("gone", stub, [[bucket(1_000)]]);
    const waited = Date.now();
    const [second] = await client.charge("gone", stub, [[bucket(1_000)]]);
    expect(second?.allowed).toBe(true);
    expect(Date.now() - waited).toBeGreaterThanOrEqual(LEASE_WAIT_MS - 50);
    // The lost round trip is forgotten: the next request does not wait for it again.
    const again = Date.now();
    const [third] = await client.charge("gone", stub, [[bucket(1_000)]]);
    expect(third?.allowed).toBe(true);
    expect(Date.now() - again).toBeLessThan(LEASE_WAIT_MS / 2);
  });

  it("passes a failed round trip on to its caller, and keeps the tokens it was returning for the next one", async () => {
    const { stub: real } = limiterFor("lease-failed-trip");
    let fail = true;
    const stub = (): LimiterStub => ({
      lease(calls, returns, now) {
        if (fail) return Promise.reject(new Error("limiter unreachable"));
        return real().lease(calls, returns, now);
      },
    });
    const client = new LeaseClient();
    await expect(client.charge("failed", stub, [[bucket(1_000)]])).rejects.toThrow("limiter unreachable");
    fail = false;
    const [verdict] = await client.charge("failed", stub, [[bucket(1_000)]]);
    expect(verdict?.allowed).toBe(true);
  });
});
