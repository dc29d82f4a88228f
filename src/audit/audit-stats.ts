/** Per-tool call counts, error rate and duration percentiles over a time window. */
import { FAILED_STATUSES } from "./audit-record.ts";
import { filterSql, type AuditFilters } from "./audit-filters.ts";
import { AUDIT_TABLE } from "./audit-table.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

export interface CallStats {
  calls: number;
  /** Calls that were allowed and failed: status `error` or `timed_out`. */
  errors: number;
  /** errors / calls; 0 when there were no calls. */
  errorRate: number;
  /** Nearest-rank percentiles of duration_ms over every recorded call; null with no calls. */
  p50Ms: number | null;
  p95Ms: number | null;
  /** Calls per audit status. */
  statuses: Record<string, number>;
}

export interface AuditStats {
  total: CallStats;
  tools: (CallStats & { tool: string })[];
}

interface StatsRow {
  tool: string | null;
  calls: number;
  errors: number | null;
  p50: number | null;
  p95: number | null;
}

const failed = FAILED_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * Percentiles in SQL with window functions (D1 has no percentile aggregate): rank each call's
 * duration within its partition, then pick rank ceil(p * n). One pass over the window's rows,
 * which the (at, id) or (tool, at, id) index finds.
 */
function statsSql(where: string, byTool: boolean): string {
  const partition = byTool ? "PARTITION BY tool " : "";
  return `WITH ranked AS (
    SELECT tool, status, duration_ms,
      ROW_NUMBER() OVER (${partition}ORDER BY duration_ms) AS rn,
      COUNT(*) OVER (${partition.trim()}) AS n
    FROM ${AUDIT_TABLE}${where}
  )
  SELECT ${byTool ? "tool" : "NULL AS tool"}, COUNT(*) AS calls,
    SUM(status IN (${failed})) AS errors,
    MAX(CASE WHEN rn = (n * 50 + 99) / 100 THEN duration_ms END) AS p50,
    MAX(CASE WHEN rn = (n * 95 + 99) / 100 THEN duration_ms END) AS p95
  FROM ranked${byTool ? " GROUP BY tool ORDER BY tool" : ""}`;
}

/** Stats of the records matching `filters` (typically since, until, tool and the caller's scope). */
export async function auditStats(db: AuditDatabase, filters: AuditFilters): Promise<AuditStats> {
  const { where, params } = filterSql(filters);
  // One batch, so the three reads see the same rows.
  const [perTool, total, statuses] = await db.batch([
    db.prepare(statsSql(where, true)).bind(...params),
    db.prepare(statsSql(where, false)).bind(...params),
    db.prepare(`SELECT tool, status, COUNT(*) AS calls FROM ${AUDIT_TABLE}${where} GROUP BY tool, status`).bind(...params),
  ]);
  const byTool = new Map<string, Record<string, number>>();
  const overall: Record<string, number> = {};
  for (const row of (statuses?.results ?? []) as { tool: string; status: string; calls: number }[]) {
    const counts = byTool.get(row.tool) ?? {};
    counts[row.status] = row.calls;
    byTool.set(row.tool, counts);
    overall[row.status] = (overall[row.status] ?? 0) + row.calls;
  }
  const totalRow = (total?.results[0] as StatsRow | undefined) ?? { tool: null, calls: 0, errors: 0, p50: null, p95: null };
  return {
    total: toCallStats(totalRow, overall),
    tools: ((perTool?.results ?? []) as StatsRow[]).map((row) => ({ tool: row.tool ?? "", ...toCallStats(row, byTool.get(row.tool ?? "") ?? {}) })),
  };
}

function toCallStats(row: StatsRow, statuses: Record<string, number>): CallStats {
  const errors = row.errors ?? 0;
  return { calls: row.calls, errors, errorRate: row.calls === 0 ? 0 : errors / row.calls, p50Ms: row.p50, p95Ms: row.p95, statuses };
}
