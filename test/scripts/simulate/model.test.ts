/** scripts/simulate/model.ts: the store load model's arithmetic, on figures worked by hand. */
import { describe, expect, it } from "vitest";
import {
  consumerBatchesPerS,
  keysWithinLimit,
  limiterRequestsPerS,
  limitsHit,
  recordsPerGroup,
  type StoreConstants,
  storeRates,
} from "../../../scripts/simulate/model.ts";
import { readConstants } from "../../../scripts/simulate/read-constants.ts";

const C: StoreConstants = {
  groupMaxRecords: 100,
  groupMaxDelayMs: 50,
  consumerMaxBatch: 100,
  consumerMaxWaitS: 1,
  rowsPerRecord: 3,
  keyLimitPerMinute: 600,
  leaseMaxShare: 0.1,
  unleasedShare: 0.1,
  leaseTrafficMs: 1_000,
  checkTtlMs: 30_000,
};

describe("the audit path", () => {
  it("groups what one isolate's calls bring in 50 ms, up to 100 records", () => {
    expect(recordsPerGroup(10, C)).toBe(1.5);
    expect(recordsPerGroup(1_000, C)).toBe(51);
    expect(recordsPerGroup(5_000, C)).toBe(100);
  });

  it("batches queue messages per consumer invocation the same way, up to 100 or 1 s", () => {
    expect(consumerBatchesPerS(0, C)).toBe(0);
    expect(consumerBatchesPerS(0.5, C)).toBeCloseTo(0.5 / 1.5);
    expect(consumerBatchesPerS(1_000, C)).toBe(10);
  });

  it("writes one audit row per call and rowsPerRecord D1 rows for each", () => {
    const rates = storeRates({ isolates: 100, callsPerIsolatePerS: 10, keys: 112 }, C);
    expect(rates.callsPerS).toBe(1_000);
    expect(rates.auditRowsPerS).toBe(1_000);
    expect(rates.d1RowsWrittenPerS).toBe(3_000);
    // 100 isolates x 10 calls/s in groups of 1.5: 667 messages/s, 100 to an invocation.
    expect(rates.queueMessagesPerS).toBeCloseTo(666.67, 1);
    expect(rates.d1WriteBatchesPerS).toBeCloseTo(6.67, 1);
  });

  it("reports the queue limit once many quiet isolates each send their own small groups", () => {
    const rates = storeRates({ isolates: 1_000, callsPerIsolatePerS: 10, keys: 1_112 }, C);
    expect(rates.queueMessagesPerS).toBeCloseTo(6_666.7, 0);
    expect(limitsHit(rates, C).join("\n")).toContain("Queues: 6667 messages/s");
  });
});

describe("the rate limiter", () => {
  it("charges a quiet isolate call by call", () => {
    // 10 isolates, each 0.5 calls/s of the key: no lease is worth having.
    expect(limiterRequestsPerS(5, 10, C)).toBe(5);
  });

  it("leases a second of a busy isolate's traffic, at most a tenth of the limit", () => {
    // One isolate, 5 calls/s: leases of 5 tokens, one round trip a second.
    expect(limiterRequestsPerS(5, 1, C)).toBe(1);
    // A limit of 60,000/min: leases cap at 6,000 tokens; 500 calls/s leases 500 at a time.
    expect(limiterRequestsPerS(500, 1, { ...C, keyLimitPerMinute: 60_000 })).toBe(1);
    // A limit of 600/min caps a lease at 60 tokens, and 9 calls/s is all that is leasable.
    expect(limiterRequestsPerS(9, 1, C)).toBe(1);
  });

  it("sends every call past the leasable budget to the object, refusals included", () => {
    // 600/min = 10/s, 9/s of it leasable: 100 calls/s leave 91 to go one by one.
    expect(limiterRequestsPerS(100, 1, C)).toBe(1 + 91);
    const rates = storeRates({ isolates: 1, callsPerIsolatePerS: 100, keys: 1 }, C);
    expect(limitsHit(rates, C).join("\n")).toContain("refused past its 600/min");
  });

  it("spreads the load over the fewest keys that stay within the leasable limit", () => {
    expect(keysWithinLimit(9, C)).toBe(1);
    expect(keysWithinLimit(10, C)).toBe(2);
    expect(keysWithinLimit(1_000, C)).toBe(112);
  });
});

describe("KV availability results", () => {
  it("counts one write per 30 s per isolate to a tool's key, and flags more than one a second", () => {
    const rates = storeRates({ isolates: 60, callsPerIsolatePerS: 1, keys: 1 }, C);
    expect(rates.kvWritesPerToolKeyPerS).toBe(2);
    expect(limitsHit(rates, C).join("\n")).toContain("KV: up to 2.0 writes/s");
  });
});

describe("readConstants", () => {
  it("finds every constant in src/ and wrangler.toml", () => {
    const constants = readConstants(process.cwd());
    for (const value of Object.values(constants)) expect(value).toBeGreaterThan(0);
    expect(constants.consumerMaxBatch).toBe(100);
  });
});
