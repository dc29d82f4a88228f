/** Per-tool call counts, error rate, duration percentiles and top failure messages over a time window. */

import { type AuditFilters, whereSql } from "./audit-filters.ts";
import { type AuditLayout, withAuditLayout } from "./audit-layout.ts";
import { FAILED_STATUSES } from "./audit-record.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** Failure messages listed per tool (and overall), most frequent first. */
export const TOP_MESSAGES = 5;

export interface MessageCount {
  message: string;
  calls: number;
}

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
  /** The most frequent failure messages (any failed status), at most TOP_MESSAGES. */
  topMessages: MessageCount[];
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
 * which the primary key (at first) or the key's index finds.
 */
function statsSql(table: string, where: string, byTool: boolean): string {
  const partition = byTool ? "PARTITION BY tool " : "";
  return `WITH ranked AS (
    SELECT tool, status, duration_ms,
      ROW_NUMBER() OVER (${partition}ORDER BY duration_ms) AS rn,
      COUNT(*) OVER (${partition.trim()}) AS n
    FROM ${table}${where}
  )
  SELECT ${byTool ? "tool" : "NULL AS tool"}, COUNT(*) AS calls,
    SUM(status IN (${failed})) AS errors,
    MAX(CASE WHEN rn = (n * 50 + 99) / 100 THEN duration_ms END) AS p50,
    MAX(CASE WHEN rn = (n * 95 + 99) / 100 THEN duration_ms END) AS p95
  FROM ranked${byTool ? " GROUP BY tool ORDER BY tool" : ""}`;
}

/** The statements stats run, in order, exported for the query-plan tests. */
export function statsStatements(layout: AuditLayout, filters: AuditFilters): { sql: string; params: (string | number)[] }[] {
  const { where, params } = whereSql(filters);
  const statements = [
    { sql: statsSql(layout.table, where, true), params },
    { sql: statsSql(layout.table, where, false), params },
    { sql: `SELECT tool, status, COUNT(*) AS calls FROM ${layout.table}${where} GROUP BY tool, status`, params },
  ];
  if (layout.keepsMessages) {
    const withMessage = `${where === "" ? " WHERE" : `${where} AND`} error_message IS NOT NULL`;
    statements.push({
      sql: `SELECT tool, error_message AS message, COUNT(*) AS calls FROM ${layout.table}${withMessage} GROUP BY tool, error_message`,
      params,
    });
  }
  return statements;
}

/** Stats of the records matching `filters` (typically since, until, tool and the caller's scope). */
export function auditStats(db: AuditDatabase, filters: AuditFilters): Promise<AuditStats> {
  return withAuditLayout(async (layout) => {
    // One batch, so every read sees the same rows.
    const [perTool, total, statuses, messages] = await db.batch(statsStatements(layout, filters).map(({ sql, params }) => db.prepare(sql).bind(...params)));
    const byTool = new Map<string, Record<string, number>>();
    const overall: Record<string, number> = {};
    for (const row of (statuses?.results ?? []) as { tool: string; status: string; calls: number }[]) {
      const counts = byTool.get(row.tool) ?? {};
      counts[row.status] = row.calls;
      byTool.set(row.tool, counts);
      overall[row.status] = (overall[row.status] ?? 0) + row.calls;
    }
    const messagesByTool = new Map<string, Map<string, number>>();
    const overallMessages = new Map<string, number>();
    for (const row of (messages?.results ?? []) as { tool: string; message: string; calls: number }[]) {
      const counts = messagesByTool.get(row.tool) ?? new Map<string, number>();
      counts.set(row.message, row.calls);
      messagesByTool.set(row.tool, counts);
      overallMessages.set(row.message, (overallMessages.get(row.message) ?? 0) + row.calls);
    }
    const totalRow = (total?.results[0] as StatsRow | undefined) ?? { tool: null, calls: 0, errors: 0, p50: null, p95: null };
    return {
      total: toCallStats(totalRow, overall, overallMessages),
      tools: ((perTool?.results ?? []) as StatsRow[]).map((row) => {
        const tool = row.tool ?? "";
        return { tool, ...toCallStats(row, byTool.get(tool) ?? {}, messagesByTool.get(tool) ?? new Map()) };
      }),
    };
  });
}

function toCallStats(row: StatsRow, statuses: Record<string, number>, messages: ReadonlyMap<string, number>): CallStats {
  const errors = row.errors ?? 0;
  return {
    calls: row.calls,
    errors,
    errorRate: row.calls === 0 ? 0 : errors / row.calls,
    p50Ms: row.p50,
    p95Ms: row.p95,
    statuses,
    topMessages: topMessages(messages),
  };
}

/** The TOP_MESSAGES most frequent of `counts` (calls per message), ties in message order. */
export function topMessages(counts: ReadonlyMap<string, number>): MessageCount[] {
  return [...counts]
    .map(([message, calls]) => ({ message, calls }))
    .sort((a, b) => b.calls - a.calls || a.message.localeCompare(b.message))
    .slice(0, TOP_MESSAGES);
}
