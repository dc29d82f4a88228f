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
import { addLease, type KeyState, meterCall, type OpenCall, takeLocally, tokensWanted, untake } from "./key-leases.ts";
import type { BucketRequest, LeaseAnswer, LeaseRequest, TokenReturn, Verdict } from "./rate-limiter.ts";

/**
 * How long a request waits for another request's round trip for the same key before making its
 * own (src/runtime/wait-for-other-request.ts says why it must not wait forever). A round trip
 * normally takes milliseconds; giving up early costs only an extra round trip.
 */
export const LEASE_WAIT_MS = 1_000;

const ALLOWED: Verdict = Object.freeze({ allowed: true });

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
    // One pass and no intermediate arrays: a call paid from leases (the common case under load)
    // gets the one shared ALLOWED verdict.
    const verdicts: Verdict[] = [];
    let open: OpenCall[] = [];
    for (let i = 0; i < calls.length; i++) {
      const buckets = calls[i] as readonly BucketRequest[];
      for (const request of buckets) meterCall(state, request.bucket, now);
      verdicts.push(ALLOWED);
      const call: OpenCall = { i, buckets, taken: [] };
      if (!takeLocally(state, call, now)) open.push(call);
    }
    const inflight = state.inflight;
    if (open.length > 0 && inflight !== undefined) {
      // Another request of this isolate is fetching leases for this key: its grants may cover us.
      const waited = await waitForOtherRequest(
        inflight.catch(() => undefined),
        LEASE_WAIT_MS,
      );
      // Its request is gone and will never finish that round trip: nobody waits on it again.
      if (!waited.settled && state.inflight === inflight) state.inflight = undefined;
      open = open.filter((call) => !takeLocally(state, call, this.#now()));
    }
    if (open.length === 0) return verdicts;

    const remote = open.map((call) =>
      call.buckets.filter((b) => !call.taken.some((t) => t.bucket === b.bucket)).map((b): LeaseRequest => ({ ...b, extra: tokensWanted(state, b, now) })),
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
      addLease(state, grant.bucket, { windowStart: grant.windowStart, windowMs, tokens: grant.tokens, expiresAt: arrived + grant.validForMs }, arrived);
    }
    answer.verdicts.forEach((verdict, n) => {
      const call = open[n];
      if (call === undefined) return;
      verdicts[call.i] = verdict;
      if (!verdict.allowed) for (const taken of call.taken) untake(state, taken, arrived);
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
}
