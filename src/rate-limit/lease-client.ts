/**
 * An isolate's side of the rate limits: it spends tokens leased from the key's RateLimiter
 * object (rate-limiter.ts) without a round trip, and goes to the object only when a bucket has
 * none left. The object stays the only authority: a leased token was charged when it was
 * granted, so limits hold exactly across isolates; refusals, and their `retryAfterMs`, only
 * ever come from the object.
 *
 * A lease is sized to about a second of this isolate's own traffic on that bucket (so a quiet
 * key is charged call by call, as before), at most a tenth of the limit; the object never
 * leases the last tenth of a window's budget, so the calls near a limit are charged one by one
 * and refused exactly. A lease ends with its window (its validity is measured from the
 * object's clock, then counted down on ours from when the answer arrived, so clock skew can
 * only shorten it) or after LEASE_MAX_MS; tokens it still holds then are returned with the
 * next round trip for that key.
 */
import { waitForOtherRequest } from "../runtime/wait-for-other-request.ts";
import type { BucketRequest, LeaseAnswer, LeaseRequest, TokenReturn, Verdict } from "./rate-limiter.ts";

/**
 * How long a request waits for another request's round trip for the same key before making its
 * own (src/runtime/wait-for-other-request.ts says why it must not wait forever). A round trip
 * normally takes milliseconds; giving up early costs only an extra round trip.
 */
export const LEASE_WAIT_MS = 1_000;

interface Lease {
  windowStart: number;
  windowMs: number;
  tokens: number;
  /** On this isolate's clock. */
  expiresAt: number;
}

/** Calls this isolate charged to a bucket per second: the previous second's count and this one's. */
interface Meter {
  second: number;
  thisSecond: number;
  lastSecond: number;
}

interface BucketState {
  lease: Lease | undefined;
  meter: Meter;
}

interface KeyState {
  buckets: Map<string, BucketState>;
  /** Unspent tokens of expired leases, to give back on the next round trip. */
  returns: TokenReturn[];
  /** The round trip under way for this key, which concurrent requests wait for before their own. */
  inflight: Promise<void> | undefined;
}

/** What the client calls on the key's object (its stub; RPC makes the answer a promise). */
export interface LimiterStub {
  lease(calls: LeaseRequest[][], returns: TokenReturn[], now?: number): Promise<LeaseAnswer>;
}

export interface LeaseClientOptions {
  /**
   * Tests only: a fake clock, whose time is also sent to the object (which otherwise uses its
   * own). In production both sides use the platform's clock.
   */
  clock?: () => number;
  /** Keys whose leases are kept at once; the least recently used key's are dropped (and lapse). */
  maxKeys?: number;
}

/**
 * One isolate's leases, for every key it has seen recently.
 *
 * @example
 * const verdicts = await leases.charge(keyId, () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(keyId)), calls);
 */
export class LeaseClient {
  readonly #keys = new Map<string, KeyState>();
  /** The key used last, already at the end of #keys' recency order. */
  #lastKeyId: string | undefined;
  readonly #clock: (() => number) | undefined;
  readonly #maxKeys: number;

  constructor({ clock, maxKeys = 10_000 }: LeaseClientOptions = {}) {
    this.#clock = clock;
    this.#maxKeys = maxKeys;
  }

  /**
   * Charges each call to every one of its buckets: from this isolate's leases where they have
   * tokens, through one round trip to `stub` for the rest (which also brings new leases).
   * A call refused by the object keeps none of the tokens taken locally for it.
   */
  async charge(keyId: string, stub: () => LimiterStub, calls: readonly (readonly BucketRequest[])[]): Promise<Verdict[]> {
    const state = this.#state(keyId);
    const now = this.#now();
    for (const buckets of calls) for (const request of buckets) this.#meter(state, request.bucket, now);
    let open = calls.map((buckets, i): OpenCall => ({ i, buckets, taken: [] }));
    const verdicts = new Array<Verdict>(calls.length).fill({ allowed: true });
    open = open.filter((call) => !this.#takeLocally(state, call, this.#now()));
    const inflight = state.inflight;
    if (open.length > 0 && inflight !== undefined) {
      // Another request of this isolate is fetching leases for this key: its grants may cover us.
      const waited = await waitForOtherRequest(
        inflight.catch(() => undefined),
        LEASE_WAIT_MS,
      );
      // Its request is gone and will never finish that round trip: nobody waits on it again.
      if (!waited.settled && state.inflight === inflight) state.inflight = undefined;
      open = open.filter((call) => !this.#takeLocally(state, call, this.#now()));
    }
    if (open.length === 0) return verdicts;

    const remote = open.map((call) =>
      call.buckets.filter((b) => !call.taken.some((t) => t.bucket === b.bucket)).map((b): LeaseRequest => ({ ...b, extra: this.#wanted(state, b, now) })),
    );
    const returns = state.returns;
    state.returns = [];
    const round = this.#clock === undefined ? stub().lease(remote, returns) : stub().lease(remote, returns, this.#clock());
    // What other requests wait on: settles either way, so a failed round trip (handled below)
    // is not also an unhandled rejection when nobody happened to wait.
    const done = round.then(
      () => undefined,
      () => undefined,
    );
    state.inflight = done;
    let answer: LeaseAnswer;
    try {
      answer = await round;
    } catch (error) {
      // Tokens to return are not lost to a failed round trip: they go with the next one.
      state.returns.push(...returns);
      throw error;
    } finally {
      if (state.inflight === done) state.inflight = undefined;
    }
    const arrived = this.#now();
    const windows = new Map(remote.flat().map((b) => [b.bucket, b.windowMs]));
    for (const grant of answer.grants) {
      const windowMs = windows.get(grant.bucket) ?? 0;
      this.#addLease(state, grant.bucket, { windowStart: grant.windowStart, windowMs, tokens: grant.tokens, expiresAt: arrived + grant.validForMs }, arrived);
    }
    answer.verdicts.forEach((verdict, n) => {
      const call = open[n];
      if (call === undefined) return;
      verdicts[call.i] = verdict;
      if (!verdict.allowed) for (const taken of call.taken) this.#untake(state, taken, arrived);
    });
    return verdicts;
  }

  /** Tokens this isolate holds for `keyId`'s bucket now (tests and diagnostics). */
  held(keyId: string, bucket: string): number {
    const lease = this.#keys.get(keyId)?.buckets.get(bucket)?.lease;
    return lease !== undefined && lease.expiresAt > this.#now() ? lease.tokens : 0;
  }

  #now(): number {
    return this.#clock?.() ?? Date.now();
  }

  #state(keyId: string): KeyState {
    let state = this.#keys.get(keyId);
    // The same key again (one busy key, the common case) is already the most recent.
    if (state !== undefined && keyId === this.#lastKeyId) return state;
    this.#lastKeyId = keyId;
    if (state !== undefined) {
      // Map order is recency order: re-insert on use, drop from the front when full.
      this.#keys.delete(keyId);
    } else {
      state = { buckets: new Map(), returns: [], inflight: undefined };
      if (this.#keys.size >= this.#maxKeys) {
        const oldest = this.#keys.keys().next();
        if (oldest.done !== true) this.#keys.delete(oldest.value);
      }
    }
    this.#keys.set(keyId, state);
    return state;
  }

  #bucket(state: KeyState, bucket: string): BucketState {
    let found = state.buckets.get(bucket);
    if (found === undefined) {
      found = { lease: undefined, meter: { second: 0, thisSecond: 0, lastSecond: 0 } };
      state.buckets.set(bucket, found);
    }
    return found;
  }

  #meter(state: KeyState, bucket: string, now: number): void {
    const { meter } = this.#bucket(state, bucket);
    const second = Math.floor(now / 1000);
    if (second !== meter.second) {
      meter.lastSecond = second === meter.second + 1 ? meter.thisSecond : 0;
      meter.thisSecond = 0;
      meter.second = second;
    }
    meter.thisSecond += 1;
  }

  /** About a second of this isolate's calls on the bucket; the object caps it further. */
  #wanted(state: KeyState, request: BucketRequest, now: number): number {
    const { meter } = this.#bucket(state, request.bucket);
    const recent = meter.second === Math.floor(now / 1000) ? Math.max(meter.lastSecond, meter.thisSecond) : 0;
    return Math.min(recent, Math.floor(request.limit / 10));
  }

  /** A live lease of the bucket, after retiring an expired one (its tokens go back). */
  #live(state: KeyState, bucket: string, now: number): Lease | undefined {
    const found = this.#bucket(state, bucket);
    const lease = found.lease;
    if (lease === undefined) return undefined;
    if (lease.expiresAt > now && lease.tokens > 0) return lease;
    if (lease.tokens > 0) state.returns.push({ bucket, windowStart: lease.windowStart, windowMs: lease.windowMs, tokens: lease.tokens });
    found.lease = undefined;
    return undefined;
  }

  /** Takes a token from every bucket of the call that has one; true when that was all of them. */
  #takeLocally(state: KeyState, call: OpenCall, now: number): boolean {
    for (const { bucket } of call.buckets) {
      if (call.taken.some((t) => t.bucket === bucket)) continue;
      const lease = this.#live(state, bucket, now);
      if (lease === undefined) continue;
      lease.tokens -= 1;
      call.taken.push({ bucket, lease });
    }
    return call.taken.length === call.buckets.length;
  }

  /**
   * Gives back a token taken for a call the object then refused: into its lease while that is
   * still the bucket's live lease, otherwise to the object with the next round trip.
   */
  #untake(state: KeyState, { bucket, lease }: { bucket: string; lease: Lease }, now: number): void {
    if (state.buckets.get(bucket)?.lease === lease && lease.expiresAt > now) lease.tokens += 1;
    else state.returns.push({ bucket, windowStart: lease.windowStart, windowMs: lease.windowMs, tokens: 1 });
  }

  #addLease(state: KeyState, bucket: string, lease: Lease, now: number): void {
    const found = this.#bucket(state, bucket);
    const current = this.#live(state, bucket, now);
    // Two round trips of this isolate may both bring a lease of the same window: the tokens add
    // up, and the earlier expiry holds for all of them.
    if (current !== undefined && current.windowStart === lease.windowStart) {
      current.tokens += lease.tokens;
      current.expiresAt = Math.min(current.expiresAt, lease.expiresAt);
      return;
    }
    if (current !== undefined) state.returns.push({ bucket, windowStart: current.windowStart, windowMs: current.windowMs, tokens: current.tokens });
    found.lease = lease;
  }
}

interface OpenCall {
  i: number;
  buckets: readonly BucketRequest[];
  /** Tokens taken from leases for this call so far, with the lease each came from. */
  taken: { bucket: string; lease: Lease }[];
}
