/**
 * Rate-limit counters for one API key, in a Durable Object so every isolate counts against the
 * same numbers (per-isolate memory would let N isolates allow N times the limit).
 *
 * Each bucket (`key`, `tool:<name>`) is a sliding-window counter: the current fixed window's
 * count plus the previous window's, weighted by how much of it still overlaps the sliding
 * window. That needs two numbers per bucket instead of a log of timestamps, and is within a
 * few percent of an exact sliding window. Counters are kept in the object's SQLite-backed
 * storage (the synchronous KV API), so eviction or a restart does not reset a key's budget.
 */
import { DurableObject } from "cloudflare:workers";

/** One limit to check and charge. */
export interface BucketRequest {
  bucket: string;
  limit: number;
  windowMs: number;
}

/** Whether one call may go ahead, and if not, how long until it could. */
export type Verdict = { allowed: true } | { allowed: false; bucket: string; limit: number; retryAfterMs: number };

interface Counter {
  windowStart: number;
  current: number;
  previous: number;
}

/** Storage key of a bucket's counter (docs/storage.md). */
export const rateCounterKey = (bucket: string): string => `rate:${bucket}`;

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
    return calls.map((buckets) => {
      const counters = buckets.map((request) => this.#roll(request, now));
      for (let i = 0; i < buckets.length; i++) {
        const request = buckets[i] as BucketRequest;
        const counter = counters[i] as Counter;
        const estimate = this.#estimate(counter, request.windowMs, now);
        if (estimate + 1 > request.limit) {
          return { allowed: false, bucket: request.bucket, limit: request.limit, retryAfterMs: this.#retryAfter(counter, request, now) };
        }
      }
      buckets.forEach((request, i) => {
        const counter = counters[i] as Counter;
        counter.current += 1;
        this.#counters.set(request.bucket, counter);
        this.ctx.storage.kv.put(rateCounterKey(request.bucket), counter);
      });
      return { allowed: true };
    });
  }

  #roll(request: BucketRequest, now: number): Counter {
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
