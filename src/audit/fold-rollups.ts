/**
 * Keeps GET /metrics' work bounded as a deployment ages: the daily cron folds hourly rollups
 * older than ROLLUP_HOURS_KEPT_MS (the console's week and a day of slack) into all-time totals
 * (migrations/0021_audit_rollup_totals.sql) and deletes them, both in one D1 batch, which is
 * atomic, so no count is lost or added twice. /metrics sums the totals and the hours still kept.
 * A late audit batch that lands in an hour already folded makes a new hourly row for it, folded
 * the next day; counters still only go up.
 */
import type { AuditDatabase } from "./audit-database.ts";
import { AUDIT_ROLLUP_BUCKETS_MS, AUDIT_ROLLUPS_TABLE, HOUR_MS, ROLLUP_SUMS } from "./audit-rollups.ts";

export const AUDIT_ROLLUP_TOTALS_TABLE = "audit_rollup_totals";
/** Hours the overview reads (its week) and one day more, so a cron that runs late folds nothing it shows. */
export const ROLLUP_HOURS_KEPT_MS = 8 * 24 * HOUR_MS;

const counted = ["calls", "errors", "duration_ms_sum", ...AUDIT_ROLLUP_BUCKETS_MS.map((bound) => `le_${bound}`)];
const columns = ["tool", "key_id", "error_code", ...counted, "duration_ms_max"];
const summed = ["tool", "key_id", "error_code", ...counted.map((column) => `SUM(${column})`), "MAX(duration_ms_max)"];

/** Both take one parameter: the first hour (epoch ms) kept. */
export const FOLD_ROLLUPS_SQL: readonly string[] = [
  `INSERT INTO ${AUDIT_ROLLUP_TOTALS_TABLE} (${columns.join(", ")})
  SELECT ${summed.join(", ")} FROM ${AUDIT_ROLLUPS_TABLE} WHERE hour < ? GROUP BY tool, key_id, error_code
  ON CONFLICT (tool, key_id, error_code) DO UPDATE SET ${counted.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")},
    duration_ms_max = MAX(duration_ms_max, excluded.duration_ms_max)`,
  `DELETE FROM ${AUDIT_ROLLUPS_TABLE} WHERE hour < ?`,
];

/** Per tool and key over all time, the totals and the hours kept together: what /metrics exposes as counters. */
export const ALL_TIME_BY_TOOL_AND_KEY_SQL = `SELECT tool, key_id, ${ROLLUP_SUMS} FROM (
  SELECT ${columns.join(", ")} FROM ${AUDIT_ROLLUPS_TABLE} UNION ALL SELECT ${columns.join(", ")} FROM ${AUDIT_ROLLUP_TOTALS_TABLE}
) GROUP BY tool, key_id`;

/** Folds each shard's old hours; returns the hourly rows folded. A shard not yet migrated to 0021 is left as it is. */
export async function foldOldRollups(shards: readonly AuditDatabase[], now: number): Promise<number> {
  const firstKept = Math.floor((now - ROLLUP_HOURS_KEPT_MS) / HOUR_MS) * HOUR_MS;
  let folded = 0;
  for (const db of shards) {
    try {
      const results = await db.batch(FOLD_ROLLUPS_SQL.map((sql) => db.prepare(sql).bind(firstKept)));
      folded += results[1]?.meta.changes ?? 0;
    } catch (error) {
      if (!String(error).includes(`no such table: ${AUDIT_ROLLUP_TOTALS_TABLE}`)) throw error;
      console.warn(`audit rollups not folded: ${AUDIT_ROLLUP_TOTALS_TABLE} does not exist yet (apply migration 0021)`);
    }
  }
  return folded;
}
