/**
 * The arithmetic of `npm run simulate`: given N isolates each serving R calls/s, the writes
 * per second each store on the hot path takes, and the platform limit each is held against.
 * Pure functions of their inputs; scripts/simulate.ts reads the inputs from src/ and
 * wrangler.toml, so a changed constant changes the figures.
 *
 * It is a steady-state model: calls arrive evenly, every isolate is alike, every call carries
 * one tool call, and the keys share the traffic evenly.
 */

/** What the code and config fix (read by scripts/simulate.ts, not repeated here). */
export interface StoreConstants {
  /** The audit group commit sends a group at this many records (GROUP_MAX_RECORDS)... */
  groupMaxRecords: number;
  /** ...or this long after its first record. */
  groupMaxDelayMs: number;
  /** The audit queue consumer's max_batch_size (messages per invocation) and max_batch_timeout. */
  consumerMaxBatch: number;
  consumerMaxWaitS: number;
  /** Rows D1 writes per audit record: the table plus each index the row enters. */
  rowsPerRecord: number;
  /** A key's per-minute limit, and the share of it one lease may hold (rate-limiter.ts). */
  keyLimitPerMinute: number;
  leaseMaxShare: number;
  /** The share of each window's budget that is never leased, only charged call by call. */
  unleasedShare: number;
  /** How long a lease holds about its isolate's traffic for (key-leases.ts: one second). */
  leaseTrafficMs: number;
  /** How long an availability result stays fresh (availability.ts CHECK_TTL_MS). */
  checkTtlMs: number;
}

/** Published platform limits the figures are held against. */
export const LIMITS = {
  /** Cloudflare Queues: messages per second per queue. */
  queueMessagesPerS: 5_000,
  /** One Durable Object: about 1,000 requests/s (a soft limit: it depends on the work per request). */
  durableObjectRequestsPerS: 1_000,
  /** KV: writes to one key, per second. */
  kvWritesPerKeyPerS: 1,
} as const;

export interface Load {
  isolates: number;
  /** Calls per second each isolate serves. */
  callsPerIsolatePerS: number;
  /** API keys the calls come from, evenly. */
  keys: number;
}

export interface StoreRates {
  callsPerS: number;
  /** One audit row per call. */
  auditRowsPerS: number;
  /** D1 rows written (billed): rows x rowsPerRecord. */
  d1RowsWrittenPerS: number;
  /** Group-commit flushes, one queue message each: every isolate's groups together. */
  queueMessagesPerS: number;
  /** Consumer invocations, each one D1 batch (statement count ~1 per invocation at these sizes). */
  d1WriteBatchesPerS: number;
  /** Records in one group, on average. */
  recordsPerGroup: number;
  /** Calls per second of one key, all isolates together. */
  callsPerKeyPerS: number;
  /** Round trips to one key's RateLimiter object, all isolates together. */
  rateLimiterRequestsPerS: number;
  /** Availability results written to KV for one tool with a check, at most (every isolate rewrites when its result is stale). */
  kvWritesPerToolKeyPerS: number;
}

/**
 * Records in one group commit: the group opens with a record and gathers for groupMaxDelayMs,
 * unless it fills first.
 */
export function recordsPerGroup(callsPerIsolatePerS: number, c: Pick<StoreConstants, "groupMaxRecords" | "groupMaxDelayMs">): number {
  return Math.min(c.groupMaxRecords, 1 + (callsPerIsolatePerS * c.groupMaxDelayMs) / 1000);
}

/**
 * Consumer invocations per second for `messagesPerS`: a batch closes at consumerMaxBatch
 * messages or consumerMaxWaitS after its first, as the group commit does.
 */
export function consumerBatchesPerS(messagesPerS: number, c: Pick<StoreConstants, "consumerMaxBatch" | "consumerMaxWaitS">): number {
  if (messagesPerS === 0) return 0;
  return messagesPerS / Math.min(c.consumerMaxBatch, 1 + messagesPerS * c.consumerMaxWaitS);
}

/**
 * Round trips one isolate makes per second to a key's RateLimiter: a quiet isolate is charged
 * call by call; a busy one leases about leaseTrafficMs of its traffic at a time, at most
 * leaseMaxShare of the per-minute limit per lease.
 */
export function limiterTripsPerIsolatePerS(callsPerS: number, c: Pick<StoreConstants, "keyLimitPerMinute" | "leaseMaxShare" | "leaseTrafficMs">): number {
  const leaseTokens = Math.min((callsPerS * c.leaseTrafficMs) / 1000, Math.floor(c.keyLimitPerMinute * c.leaseMaxShare));
  if (leaseTokens <= 1) return callsPerS;
  return callsPerS / leaseTokens;
}

/**
 * Round trips per second to one key's RateLimiter when `isolates` share its `callsPerS`: the
 * calls within the leasable part of the budget go through leases; the rest (the last tenth of
 * each window, and every call past the limit, since refusals only come from the object) are
 * one round trip each.
 */
export function limiterRequestsPerS(
  callsPerS: number,
  isolates: number,
  c: Pick<StoreConstants, "keyLimitPerMinute" | "leaseMaxShare" | "leaseTrafficMs" | "unleasedShare">,
): number {
  const leasedPerS = Math.min(callsPerS, (c.keyLimitPerMinute / 60) * (1 - c.unleasedShare));
  return isolates * limiterTripsPerIsolatePerS(leasedPerS / isolates, c) + (callsPerS - leasedPerS);
}

/** Every store's rate for one load. */
export function storeRates({ isolates, callsPerIsolatePerS: r, keys }: Load, c: StoreConstants): StoreRates {
  const callsPerS = isolates * r;
  const perGroup = recordsPerGroup(r, c);
  const queueMessagesPerS = r === 0 ? 0 : callsPerS / perGroup;
  const callsPerKeyPerS = callsPerS / keys;
  return {
    callsPerS,
    auditRowsPerS: callsPerS,
    d1RowsWrittenPerS: callsPerS * c.rowsPerRecord,
    queueMessagesPerS,
    d1WriteBatchesPerS: consumerBatchesPerS(queueMessagesPerS, c),
    recordsPerGroup: perGroup,
    callsPerKeyPerS,
    rateLimiterRequestsPerS: limiterRequestsPerS(callsPerKeyPerS, isolates, c),
    kvWritesPerToolKeyPerS: r === 0 ? 0 : isolates / (c.checkTtlMs / 1000),
  };
}

/** The fewest keys that keep every key's share of `callsPerS` inside the leasable part of its limit. */
export function keysWithinLimit(callsPerS: number, c: Pick<StoreConstants, "keyLimitPerMinute" | "unleasedShare">): number {
  return Math.max(1, Math.ceil((callsPerS * 60) / (c.keyLimitPerMinute * (1 - c.unleasedShare))));
}

/** The limits `rates` would hit, one line each; empty when none. */
export function limitsHit(rates: StoreRates, c: Pick<StoreConstants, "keyLimitPerMinute">): string[] {
  const hit: string[] = [];
  if (rates.queueMessagesPerS > LIMITS.queueMessagesPerS)
    hit.push(`Queues: ${rates.queueMessagesPerS.toFixed(0)} messages/s on the audit queue, over its ${LIMITS.queueMessagesPerS}/s per queue`);
  if (rates.rateLimiterRequestsPerS > LIMITS.durableObjectRequestsPerS)
    hit.push(
      `Durable Object: ${rates.rateLimiterRequestsPerS.toFixed(0)} requests/s to one key's RateLimiter, over ~${LIMITS.durableObjectRequestsPerS}/s per object`,
    );
  if (rates.kvWritesPerToolKeyPerS > LIMITS.kvWritesPerKeyPerS)
    hit.push(`KV: up to ${rates.kvWritesPerToolKeyPerS.toFixed(1)} writes/s to one tool's availability key, over ${LIMITS.kvWritesPerKeyPerS}/s per key`);
  if (rates.callsPerKeyPerS * 60 > c.keyLimitPerMinute)
    hit.push(
      `rate limit: a key at ${(rates.callsPerKeyPerS * 60).toFixed(0)} calls/min is refused past its ${c.keyLimitPerMinute}/min, each refusal a round trip to its object`,
    );
  return hit;
}
