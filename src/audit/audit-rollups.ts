/**
 * Hourly rollups of the audit log (migrations/0012_audit_rollups.sql; docs/storage.md): calls,
 * errors and a fixed-bucket duration histogram per hour, tool, key and error code. The audit
 * writer runs ROLLUP_STATEMENTS_SQL in the same D1 batch as the rows, each
 * just before the INSERT of the same rows, counting only rows not stored yet: exactly the ones
 * the INSERT then stores. So a redelivered audit message counts nothing twice and a failed batch
 * counts nothing. The overview and GET /metrics read them.
 */

import type { AuditDatabase } from "./audit-database.ts";
import { FAILED_STATUSES } from "./audit-record.ts";
import { AUDIT_COLUMNS, AUDIT_TABLE } from "./audit-table.ts";

export const AUDIT_ROLLUPS_TABLE = "audit_rollups";
export const HOUR_MS = 3_600_000;

/** Upper bounds (ms, inclusive) of the histogram's finite buckets; column `le_<bound>` each. */
export const AUDIT_ROLLUP_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;
const bucketColumns = AUDIT_ROLLUP_BUCKETS_MS.map((bound) => `le_${bound}`);

const column = (name: (typeof AUDIT_COLUMNS)[number]) => `row ->> ${AUDIT_COLUMNS.indexOf(name)}`;
const failed = FAILED_STATUSES.map((status) => `'${status}'`).join(", ");

/**
 * The rows of the statement's one parameter (the INSERT's: a JSON array of AuditRowValues) that
 * audit_records does not hold yet, once each (the same record twice in one batch, from two
 * messages, is one). A probe of the primary key per row.
 */
const FRESH_ROWS = `WITH audit_rows(row) AS MATERIALIZED (SELECT value FROM json_each(?)),
  fresh AS (SELECT DISTINCT ${column("at")} AS at, ${column("rid")} AS rid, ${column("tool")} AS tool, ${column("key_id")} AS key_id,
    ${column("status")} AS status, ${column("error_code")} AS error_code, ${column("duration_ms")} AS duration_ms
    FROM audit_rows WHERE NOT EXISTS (SELECT 1 FROM ${AUDIT_TABLE} WHERE ${AUDIT_TABLE}.at = ${column("at")} AND ${AUDIT_TABLE}.rid = ${column("rid")}))`;

/**
 * Adds the rows about to be inserted to the rollups: one upsert per (hour, tool, key, error
 * code), however many records the batch holds. Each must run before the INSERT of
 * the same parameter, in the same D1 batch (write-audit-records.ts). `WHERE true` is SQLite's
 * required disambiguation before an upsert's ON CONFLICT.
 */
export const ROLLUP_STATEMENTS_SQL: readonly string[] = [
  `${FRESH_ROWS}
  INSERT INTO ${AUDIT_ROLLUPS_TABLE} (hour, tool, key_id, error_code, calls, errors, duration_ms_sum, duration_ms_max, ${bucketColumns.join(", ")})
  SELECT at / ${HOUR_MS} * ${HOUR_MS}, tool, key_id, COALESCE(error_code, ''), COUNT(*), SUM(status IN (${failed})), SUM(duration_ms), MAX(duration_ms),
    ${AUDIT_ROLLUP_BUCKETS_MS.map((bound) => `SUM(duration_ms <= ${bound})`).join(", ")}
  FROM fresh WHERE true GROUP BY 1, 2, 3, 4
  ON CONFLICT (hour, tool, key_id, error_code) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
    duration_ms_sum = duration_ms_sum + excluded.duration_ms_sum, duration_ms_max = MAX(duration_ms_max, excluded.duration_ms_max),
    ${bucketColumns.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}`,
];

/** Counts of one group of rollup rows, summed. `buckets[i]` is cumulative: calls <= AUDIT_ROLLUP_BUCKETS_MS[i]. */
export interface RollupCounts {
  calls: number;
  errors: number;
  durationMsSum: number;
  durationMsMax: number;
  buckets: number[];
}

/** The summed columns of a rollup read, named as the table's. */
export const ROLLUP_SUMS = `SUM(calls) AS calls, SUM(errors) AS errors, SUM(duration_ms_sum) AS duration_ms_sum, MAX(duration_ms_max) AS duration_ms_max, ${bucketColumns
  .map((column) => `SUM(${column}) AS ${column}`)
  .join(", ")}`;

/** Per hour and tool, over every key, in [since, until) (both whole hours). */
export const ROLLUPS_BY_HOUR_AND_TOOL_SQL = `SELECT hour, tool, ${ROLLUP_SUMS} FROM ${AUDIT_ROLLUPS_TABLE} WHERE hour >= ? AND hour < ? GROUP BY hour, tool`;
/** Per tool and key, over the hours kept: what /metrics reads before migration 0021 (fold-rollups.ts has the all-time read). */
export const ROLLUPS_BY_TOOL_AND_KEY_SQL = `SELECT tool, key_id, ${ROLLUP_SUMS} FROM ${AUDIT_ROLLUPS_TABLE} GROUP BY tool, key_id`;
/** Calls per error code in [since, until). */
export const ERROR_CODES_SQL = `SELECT error_code AS code, SUM(calls) AS calls FROM ${AUDIT_ROLLUPS_TABLE} WHERE hour >= ? AND hour < ? AND error_code <> '' GROUP BY error_code`;

/** A summed row as D1 returns it. */
type SummedRow = Record<string, number | string | null>;

/** The counts of a summed row. */
export function countsOf(row: SummedRow): RollupCounts {
  const n = (column: string) => Number(row[column] ?? 0);
  return {
    calls: n("calls"),
    errors: n("errors"),
    durationMsSum: n("duration_ms_sum"),
    durationMsMax: n("duration_ms_max"),
    buckets: bucketColumns.map(n),
  };
}

export const emptyCounts = (): RollupCounts => ({ calls: 0, errors: 0, durationMsSum: 0, durationMsMax: 0, buckets: AUDIT_ROLLUP_BUCKETS_MS.map(() => 0) });

/** Adds `more` into `into`. */
export function addCounts(into: RollupCounts, more: RollupCounts): void {
  into.calls += more.calls;
  into.errors += more.errors;
  into.durationMsSum += more.durationMsSum;
  into.durationMsMax = Math.max(into.durationMsMax, more.durationMsMax);
  more.buckets.forEach((n, i) => {
    into.buckets[i] = (into.buckets[i] ?? 0) + n;
  });
}

/**
 * The nearest-rank p-th percentile as the histogram knows it: the upper bound of the bucket
 * holding the ceil(p * n)-th smallest duration, never above the largest duration seen (so a
 * window of one 3 ms call says 3, not 5). Exact to the bucket; the raw rows (GET /v1/audit/stats)
 * have exact figures.
 */
export function percentileOf(counts: RollupCounts, p: number): number | null {
  if (counts.calls === 0) return null;
  const rank = Math.floor((counts.calls * p + 99) / 100);
  const index = counts.buckets.findIndex((n) => n >= rank);
  const bound = AUDIT_ROLLUP_BUCKETS_MS[index];
  return bound === undefined ? counts.durationMsMax : Math.min(bound, counts.durationMsMax);
}

/** Summed rows of `sql` from every shard. Shards hold disjoint keys, so their rows add up. */
export async function readRollups(shards: readonly AuditDatabase[], sql: string, params: readonly number[] = []): Promise<SummedRow[]> {
  const answers = await Promise.all(
    shards.map((db) =>
      db
        .prepare(sql)
        .bind(...params)
        .all<SummedRow>(),
    ),
  );
  return answers.flatMap((answer) => answer.results);
}
