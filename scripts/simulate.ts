/**
 * `npm run simulate`: what toolgate's hot path asks of each store at a given load, N isolates
 * each serving R calls/s, against the platform's published limits (scripts/simulate/model.ts).
 * No network, no Worker: arithmetic over the constants the code and wrangler.toml set
 * (scripts/simulate/read-constants.ts), so it follows their changes.
 *
 * @example
 * ```sh
 * npm run simulate                                   # a table for 10 to 10,000 calls/s
 * npm run simulate -- --isolates=200 --rate=25       # one load
 * npm run simulate -- --rows-per-record=8 --keys=1   # the audit_log table before 0005, one key for everything
 * ```
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_ROWS_WRITTEN } from "./bench/scenarios/audit-cost.ts";
import { numberFlag } from "./number-flag.ts";
import { keysWithinLimit, LIMITS, type Load, limitsHit, type StoreConstants, type StoreRates, storeRates } from "./simulate/model.ts";
import { readConstants } from "./simulate/read-constants.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Total calls/s of the default table, and how many calls/s one isolate takes in it. */
const TABLE_TOTALS = [10, 100, 1_000, 10_000];
const DEFAULT_CALLS_PER_ISOLATE = 10;

const keyLimit = numberFlag("key-limit");
const constants: StoreConstants = {
  ...readConstants(root),
  ...(keyLimit === undefined ? {} : { keyLimitPerMinute: keyLimit }),
  // Issue 16's target by default; the bench's audit-cost scenario measures the schema's figure.
  rowsPerRecord: numberFlag("rows-per-record") ?? MAX_ROWS_WRITTEN,
};
const isolatesFlag = numberFlag("isolates");
const rateFlag = numberFlag("rate");
const keysFlag = numberFlag("keys");

/** One load per total calls/s, or the one the flags name. */
function loads(): Load[] {
  const rate = rateFlag ?? DEFAULT_CALLS_PER_ISOLATE;
  const perTotal = (total: number, isolates: number): Load => ({
    isolates,
    callsPerIsolatePerS: total / isolates,
    keys: keysFlag ?? keysWithinLimit(total, constants),
  });
  if (isolatesFlag !== undefined) return [perTotal(isolatesFlag * rate, isolatesFlag)];
  return TABLE_TOTALS.map((total) => perTotal(total, Math.max(1, Math.ceil(total / rate))));
}

const COLUMNS: { header: string; value: (load: Load, rates: StoreRates) => number; digits: number }[] = [
  { header: "calls/s", value: (_, r) => r.callsPerS, digits: 0 },
  { header: "isolates", value: (l) => l.isolates, digits: 0 },
  { header: "calls/s/isolate", value: (l) => l.callsPerIsolatePerS, digits: 1 },
  { header: "keys", value: (l) => l.keys, digits: 0 },
  { header: "D1 audit rows/s", value: (_, r) => r.auditRowsPerS, digits: 0 },
  { header: "D1 rows written/s", value: (_, r) => r.d1RowsWrittenPerS, digits: 0 },
  { header: "D1 write batches/s", value: (_, r) => r.d1WriteBatchesPerS, digits: 1 },
  { header: "records/group", value: (_, r) => r.recordsPerGroup, digits: 1 },
  { header: "queue msgs/s", value: (_, r) => r.queueMessagesPerS, digits: 0 },
  { header: "limiter DO req/s per key", value: (_, r) => r.rateLimiterRequestsPerS, digits: 1 },
  { header: "KV writes/s per tool key", value: (_, r) => r.kvWritesPerToolKeyPerS, digits: 2 },
];

const rows = loads().map((load) => ({ load, rates: storeRates(load, constants) }));
const cells = [COLUMNS.map((c) => c.header), ...rows.map(({ load, rates }) => COLUMNS.map((c) => c.value(load, rates).toFixed(c.digits)))];
const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
console.log(`toolgate store load model (scripts/simulate/model.ts)
  audit group commit: a group per isolate of up to ${constants.groupMaxRecords} records or ${constants.groupMaxDelayMs} ms, one queue message; consumer: up to ${constants.consumerMaxBatch} messages or ${constants.consumerMaxWaitS} s per invocation, one D1 batch each
  ${constants.rowsPerRecord} D1 rows written per audit record (--rows-per-record; the bench's audit-cost scenario counts the schema's)
  rate limits: ${constants.keyLimitPerMinute} calls/min per key (--key-limit), leases of about ${constants.leaseTrafficMs / 1000} s of an isolate's traffic, at most ${constants.leaseMaxShare} of the limit, the last ${constants.unleasedShare} charged call by call; keys: the fewest that keep each key within its limit (--keys); per-tool buckets are leased alike and not modelled
  availability: a tool's result rewritten at most once per ${constants.checkTtlMs / 1000} s per isolate (an upper bound: isolates reuse a fresh result from KV)
  limits: Queues ${LIMITS.queueMessagesPerS} msgs/s per queue; a Durable Object ~${LIMITS.durableObjectRequestsPerS} req/s; KV ${LIMITS.kvWritesPerKeyPerS} write/s per key
`);
for (const row of cells) console.log(`  ${row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  ")}`);
console.log("");
for (const { rates } of rows) {
  const hit = limitsHit(rates, constants);
  console.log(`${rates.callsPerS.toFixed(0)} calls/s:${hit.length === 0 ? " no limit hit" : `\n  ${hit.join("\n  ")}`}`);
}
