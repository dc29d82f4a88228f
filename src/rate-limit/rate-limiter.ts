/**
 * Rate-limit counters for one API key, in a Durable Object so every isolate counts against the
 * same numbers (per-isolate memory would let N isolates allow N times the limit).
 *
 * Each bucket (`key`, `tool:<name>`) is a sliding-window counter: the current fixed window's
 * count plus the previous window's, weighted by how much of it still overlaps the sliding
 * window. That needs two numbers per bucket instead of a log of timestamps, and is within a
 * few percent of an exact sliding window. Counters are kept in the object's SQLite-backed
 * storage (the synchronous KV API), so eviction or a restart does not reset a key's budget.
 *
 * Besides charging a call, the object hands out leases (lease-client.ts): tokens charged now,
 * in this window, that an isolate then spends without a round trip. They are counted as used
 * the moment they are granted, so no number of isolates can ever spend more than the limit;
 * what a lease costs is that its unspent tokens are unavailable to other isolates until they
 * are returned or the window moves on. The last tenth of every budget is never leased, so the
 * calls that decide a refusal are always charged one by one.
 */
import { DurableObject } from "cloudflare:workers";

/** One limit to check and charge. */
export interface BucketRequest {
  bucket: string;
  limit: number;
  windowMs: number;
}

/** A limit to charge one call to, plus how many more tokens the caller would like leased. */
export interface LeaseRequest extends BucketRequest {
  extra: number;
}

/** Tokens leased to the caller: charged in the window starting at `windowStart`. */
export interface LeaseGrant {
  bucket: string;
  windowStart: number;
  tokens: number;
  /** How long from the object's `now` the tokens may be spent: never past their window's end. */
  validForMs: number;
}

/** Leased tokens that were never spent, given back so they count for no one. */
export interface TokenReturn {
  bucket: string;
  windowStart: number;
  windowMs: number;
  tokens: number;
}

/** Whether one call may go ahead, and if not, how long until it could. */
export type Verdict = { allowed: true } | { allowed: false; bucket: string; limit: number; retryAfterMs: number };

export interface LeaseAnswer {
  /** One per call, in order. */
  verdicts: Verdict[];
  grants: LeaseGrant[];
}

interface Counter {
  windowStart: number;
  current: number;
  previous: number;
}

/** Storage key of a bucket's counter (docs/storage.md). */
export const rateCounterKey = (bucket: string): string => `rate:${bucket}`;

/** At most this share of a limit goes into one lease. */
export const LEASE_MAX_SHARE = 0.1;
/** This share of a limit, the last of each window's budget, is only ever charged call by call. */
export const UNLEASED_SHARE = 0.1;
/** A lease lives at most this long, so unspent tokens come back (or lapse) soon. */
export const LEASE_MAX_MS = 2_000;
/** No lease is granted this close to a window's end: its tokens would barely be usable. */
const LEASE_MIN_MS = 250;

export class RateLimiter extends DurableObject<Env> {
  /**
   * The object's own copy of its counters: a Durable Object is the only writer of its storage,
   * so after the first read of a bucket its memory is authoritative and storage only needs the
   * writes (which keep the counts across eviction and restarts).
   */
  readonly #counters = new Map<string, Counter>();

  /**
   * Charges each call's buckets if all of them have room, in order; a call that would pass a
   * limit is refused and charges nothing. One round trip covers a whole batch.
   */
  consume(calls: readonly (readonly BucketRequest[])[], now: number = Date.now()): Verdict[] {
    return this.lease(
      calls.map((buckets) => buckets.map((b) => ({ ...b, extra: 0 }))),
      [],
      now,
    ).verdicts;
  }

  /**
   * Takes back `returns`, charges `calls` as `consume` does, then leases each charged bucket up
   * to its largest `extra`: at most a tenth of the limit, never into the unleased last tenth,
   * and only while enough of the window is left to use them.
   */
  lease(calls: readonly (readonly LeaseRequest[])[], returns: readonly TokenReturn[], now: number = Date.now()): LeaseAnswer {
    const dirty = new Map<string, Counter>();
    for (const given of returns) this.#giveBack(given, now, dirty);
    const wanted = new Map<string, LeaseRequest>();
    const verdicts = calls.map((buckets): Verdict => {
      const counters = buckets.map((request) => this.#roll(request, now));
      for (let i = 0; i < buckets.length; i++) {
        const request = buckets[i] as LeaseRequest;
        const counter = counters[i] as Counter;
        if (this.#estimate(counter, request.windowMs, now) + 1 > request.limit) {
          return { allowed: false, bucket: request.bucket, limit: request.limit, retryAfterMs: this.#retryAfter(counter, request, now) };
        }
      }
      buckets.forEach((request, i) => {
        const counter = counters[i] as Counter;
        counter.current += 1;
        this.#counters.set(request.bucket, counter);
        dirty.set(request.bucket, counter);
        if (request.extra > (wanted.get(request.bucket)?.extra ?? 0)) wanted.set(request.bucket, request);
      });
      return { allowed: true };
    });
    const grants: LeaseGrant[] = [];
    for (const request of wanted.values()) {
      const counter = this.#roll(request, now);
      const validForMs = Math.min(counter.windowStart + request.windowMs - now, LEASE_MAX_MS);
      const room = Math.floor(request.limit * (1 - UNLEASED_SHARE) - this.#estimate(counter, request.windowMs, now));
      const tokens = Math.min(request.extra, Math.floor(request.limit * LEASE_MAX_SHARE), room);
      if (tokens <= 0 || validForMs < LEASE_MIN_MS) continue;
      counter.current += tokens;
      this.#counters.set(request.bucket, counter);
      dirty.set(request.bucket, counter);
      grants.push({ bucket: request.bucket, windowStart: counter.windowStart, tokens, validForMs });
    }
    // One storage write per bucket touched, however many calls and tokens this round trip moved.
    for (const [bucket, counter] of dirty) this.ctx.storage.kv.put(rateCounterKey(bucket), counter);
    return { verdicts, grants };
  }

  /** Uncounts unspent leased tokens from the window that was charged for them, if it still counts. */
  #giveBack(given: TokenReturn, now: number, dirty: Map<string, Counter>): void {
    const counter = this.#roll(given, now);
    if (given.windowStart === counter.windowStart) counter.current = Math.max(0, counter.current - given.tokens);
    else if (given.windowStart === counter.windowStart - given.windowMs) counter.previous = Math.max(0, counter.previous - given.tokens);
    else return;
    this.#counters.set(given.bucket, counter);
    dirty.set(given.bucket, counter);
  }

  #roll(request: { bucket: string; windowMs: number }, now: number): Counter {
    const windowStart = Math.floor(now / request.windowMs) * request.windowMs;
    const stored = this.#counters.get(request.bucket) ?? this.ctx.storage.kv.get<Counter>(rateCounterKey(request.bucket));
    if (stored === undefined) return { windowStart, current: 0, previous: 0 };
    if (stored.windowStart === windowStart) return stored;
    const previous = stored.windowStart === windowStart - request.windowMs ? stored.current : 0;
    return { windowStart, current: 0, previous };
  }

  #estimate(counter: Counter, windowMs: number, now: number): number {
    const overlap = 1 - (now - counter.windowStart) / windowMs;
    return counter.current + counter.previous * overlap;
  }

  /** Time until one more call fits: the previous window's share decays linearly. */
  #retryAfter(counter: Counter, request: BucketRequest, now: number): number {
    const untilNextWindow = counter.windowStart + request.windowMs - now;
    if (counter.current + 1 > request.limit) {
      // This window's calls become the next window's "previous", still counted at nearly full
      // weight when it starts: wait until enough of that weight has decayed.
      return Math.max(1, untilNextWindow + Math.ceil((request.windowMs * (counter.current + 1 - request.limit)) / counter.current));
    }
    if (counter.previous === 0) return Math.max(1, untilNextWindow);
    // Solve current + previous * (1 - (t - start)/window) + 1 <= limit for t.
    const excess = counter.current + 1 + counter.previous * (1 - (now - counter.windowStart) / request.windowMs) - request.limit;
    return Math.max(1, Math.ceil((excess / counter.previous) * request.windowMs));
  }
}
