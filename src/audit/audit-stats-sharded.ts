/**
 * Admin stats over every audit shard (audit-shards.ts), exact: each shard answers with counts per
 * (tool, status, duration) and per (tool, failure message), which sum across shards without loss,
 * and the percentiles are ranked over the summed duration counts, as one database would rank them.
 */

import { type AuditFilters, whereSql } from "./audit-filters.ts";
import { withAuditLayout } from "./audit-layout.ts";
import { type AuditStatus, FAILED_STATUSES } from "./audit-record.ts";
import { type AuditStats, type CallStats, topMessages } from "./audit-stats.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

interface Tally {
  statuses: Map<string, number>;
  /** Calls per duration_ms. */
  durations: Map<number, number>;
  messages: Map<string, number>;
}

const newTally = (): Tally => ({ statuses: new Map(), durations: new Map(), messages: new Map() });
const add = <K>(map: Map<K, number>, key: K, n: number) => map.set(key, (map.get(key) ?? 0) + n);

/** Stats of `filters` over `shards`, equal to what auditStats would answer over their union. */
export async function auditStatsSharded(shards: readonly AuditDatabase[], filters: AuditFilters): Promise<AuditStats> {
  const { where, params } = whereSql(filters);
  const withMessage = `${where === "" ? " WHERE" : `${where} AND`} error_message IS NOT NULL`;
  const answers = await Promise.all(
    shards.map((db) =>
      withAuditLayout(async (layout) => {
        const [counts, messages] = await db.batch([
          db.prepare(`SELECT tool, status, duration_ms AS ms, COUNT(*) AS n FROM ${layout.table}${where} GROUP BY tool, status, duration_ms`).bind(...params),
          db
            .prepare(
              layout.keepsMessages
                ? `SELECT tool, error_message AS message, COUNT(*) AS n FROM ${layout.table}${withMessage} GROUP BY tool, error_message`
                : "SELECT NULL AS tool, NULL AS message, 0 AS n WHERE false",
            )
            .bind(...(layout.keepsMessages ? params : [])),
        ]);
        return {
          counts: (counts?.results ?? []) as { tool: string; status: string; ms: number; n: number }[],
          messages: (messages?.results ?? []) as { tool: string; message: string; n: number }[],
        };
      }),
    ),
  );
  const total = newTally();
  const tools = new Map<string, Tally>();
  const toolTally = (tool: string) => tools.get(tool) ?? tools.set(tool, newTally()).get(tool) ?? newTally();
  for (const answer of answers) {
    for (const row of answer.counts) {
      for (const tally of [total, toolTally(row.tool)]) {
        add(tally.statuses, row.status, row.n);
        add(tally.durations, row.ms, row.n);
      }
    }
    for (const row of answer.messages) for (const tally of [total, toolTally(row.tool)]) add(tally.messages, row.message, row.n);
  }
  return {
    total: callStats(total),
    tools: [...tools].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([tool, tally]) => ({ tool, ...callStats(tally) })),
  };
}

function callStats(tally: Tally): CallStats {
  const calls = [...tally.statuses.values()].reduce((sum, n) => sum + n, 0);
  const errors = FAILED_STATUSES.reduce((sum, status: AuditStatus) => sum + (tally.statuses.get(status) ?? 0), 0);
  const durations = [...tally.durations].sort(([a], [b]) => a - b);
  // Nearest rank, as audit-stats.ts computes it in SQL: the ceil(p * n)-th smallest duration.
  const percentile = (p: number): number | null => {
    if (calls === 0) return null;
    const rank = Math.floor((calls * p + 99) / 100);
    let seen = 0;
    for (const [ms, n] of durations) {
      seen += n;
      if (seen >= rank) return ms;
    }
    return null;
  };
  return {
    calls,
    errors,
    errorRate: calls === 0 ? 0 : errors / calls,
    p50Ms: percentile(50),
    p95Ms: percentile(95),
    statuses: Object.fromEntries(tally.statuses),
    topMessages: topMessages(tally.messages),
  };
}
