/**
 * One key's leases in one isolate, as LeaseClient (lease-client.ts) keeps them: per bucket the
 * live lease and a per-second meter of this isolate's calls, plus the unspent tokens of expired
 * leases still to give back to the key's RateLimiter object.
 */
import type { BucketRequest, TokenReturn } from "./rate-limiter.ts";

/** Tokens the object leased this isolate for one bucket and window. */
export interface Lease {
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

/** Everything this isolate keeps for one key. */
export interface KeyState {
  buckets: Map<string, BucketState>;
  /** Unspent tokens of expired leases, to give back on the next round trip. */
  returns: TokenReturn[];
  /** The round trip under way for this key, which concurrent requests wait for before their own. */
  inflight: Promise<void> | undefined;
}

/** A call of a `charge` not yet settled, with the tokens taken for it locally so far. */
export interface OpenCall {
  i: number;
  buckets: readonly BucketRequest[];
  /** Tokens taken from leases for this call so far, with the lease each came from. */
  taken: { bucket: string; lease: Lease }[];
}

function bucketState(state: KeyState, bucket: string): BucketState {
  let found = state.buckets.get(bucket);
  if (found === undefined) {
    found = { lease: undefined, meter: { second: 0, thisSecond: 0, lastSecond: 0 } };
    state.buckets.set(bucket, found);
  }
  return found;
}

/** Counts a call against the bucket's per-second meter. */
export function meterCall(state: KeyState, bucket: string, now: number): void {
  const { meter } = bucketState(state, bucket);
  const second = Math.floor(now / 1000);
  if (second !== meter.second) {
    meter.lastSecond = second === meter.second + 1 ? meter.thisSecond : 0;
    meter.thisSecond = 0;
    meter.second = second;
  }
  meter.thisSecond += 1;
}

/** About a second of this isolate's calls on the bucket; the object caps it further. */
export function tokensWanted(state: KeyState, request: BucketRequest, now: number): number {
  const { meter } = bucketState(state, request.bucket);
  const recent = meter.second === Math.floor(now / 1000) ? Math.max(meter.lastSecond, meter.thisSecond) : 0;
  return Math.min(recent, Math.floor(request.limit / 10));
}

/** A live lease of the bucket, after retiring an expired one (its tokens go back). */
function liveLease(state: KeyState, bucket: string, now: number): Lease | undefined {
  const found = bucketState(state, bucket);
  const lease = found.lease;
  if (lease === undefined) return undefined;
  if (lease.expiresAt > now && lease.tokens > 0) return lease;
  if (lease.tokens > 0) state.returns.push({ bucket, windowStart: lease.windowStart, windowMs: lease.windowMs, tokens: lease.tokens });
  found.lease = undefined;
  return undefined;
}

/** Takes a token from every bucket of the call that has one; true when that was all of them. */
export function takeLocally(state: KeyState, call: OpenCall, now: number): boolean {
  for (const { bucket } of call.buckets) {
    if (call.taken.some((t) => t.bucket === bucket)) continue;
    const lease = liveLease(state, bucket, now);
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
export function untake(state: KeyState, { bucket, lease }: { bucket: string; lease: Lease }, now: number): void {
  if (state.buckets.get(bucket)?.lease === lease && lease.expiresAt > now) lease.tokens += 1;
  else state.returns.push({ bucket, windowStart: lease.windowStart, windowMs: lease.windowMs, tokens: 1 });
}

/** Keeps a lease the object granted, merged with or replacing the bucket's current one. */
export function addLease(state: KeyState, bucket: string, lease: Lease, now: number): void {
  const found = bucketState(state, bucket);
  const current = liveLease(state, bucket, now);
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
