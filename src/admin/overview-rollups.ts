/**
 * The overview's day and week windows from the hourly rollups (src/audit/audit-rollups.ts):
 * calls and errors per interval, per-tool counts and histogram percentiles, and error codes, from
 * a few rows per hour instead of ranking every audit row of the window. Failure messages are not
 * rolled up (their text is unbounded in variety), so they still come from the window's failed
 * rows, read without the sort the percentiles needed.
 */

import {
  addCounts,
  countsOf,
  ERROR_CODES_SQL,
  emptyCounts,
  percentileOf,
  ROLLUPS_BY_HOUR_AND_TOOL_SQL,
  type RollupCounts,
  readRollups,
} from "../audit/audit-rollups.ts";
import { shardsToRead } from "../audit/audit-shards.ts";
import type { CallStats } from "../audit/audit-stats.ts";
import { topMessages } from "../audit/audit-stats.ts";
import { AUDIT_TABLE } from "../audit/audit-table.ts";
import type { Interval, Overview } from "./overview-types.ts";

export interface RollupWindow {
  since: number;
  until: number;
  intervalMs: number;
  count: number;
}

/** Failure messages per tool in the window: a scan of its rows, grouping only the failed ones. */
export const WINDOW_MESSAGES_SQL = `SELECT tool, error_message AS message, COUNT(*) AS calls FROM ${AUDIT_TABLE} WHERE at >= ? AND at < ? AND error_message IS NOT NULL GROUP BY tool, error_message`;

/** The overview's figures over every shard, without its top error codes (counted in `codes`). */
export async function overviewFromRollups(
  env: Env,
  { since, until, intervalMs, count }: RollupWindow,
): Promise<Omit<Overview, "topErrorCodes"> & { codes: Map<string, number> }> {
  const shards = shardsToRead(env).map((shard) => shard.db);
  const [rows, codeRows, messageRows] = await Promise.all([
    readRollups(shards, ROLLUPS_BY_HOUR_AND_TOOL_SQL, [since, until]),
    readRollups(shards, ERROR_CODES_SQL, [since, until]),
    readRollups(shards, WINDOW_MESSAGES_SQL, [since, until]),
  ]);
  const intervals: Interval[] = Array.from({ length: count }, (_, i) => ({ start: since + i * intervalMs, calls: 0, errors: 0 }));
  const total = emptyCounts();
  const tools = new Map<string, RollupCounts>();
  for (const row of rows) {
    const counts = countsOf(row);
    const interval = intervals[Math.floor((Number(row.hour) - since) / intervalMs)];
    if (interval !== undefined) {
      interval.calls += counts.calls;
      interval.errors += counts.errors;
    }
    addCounts(total, counts);
    const tool = String(row.tool);
    const perTool = tools.get(tool) ?? emptyCounts();
    addCounts(perTool, counts);
    tools.set(tool, perTool);
  }
  const messages = new Map<string, Map<string, number>>();
  const allMessages = new Map<string, number>();
  for (const row of messageRows) {
    const tool = String(row.tool);
    const message = String(row.message);
    const n = Number(row.calls);
    const perTool = messages.get(tool) ?? new Map<string, number>();
    perTool.set(message, (perTool.get(message) ?? 0) + n);
    messages.set(tool, perTool);
    allMessages.set(message, (allMessages.get(message) ?? 0) + n);
  }
  const codes = new Map<string, number>();
  for (const row of codeRows) codes.set(String(row.code), (codes.get(String(row.code)) ?? 0) + Number(row.calls));
  return {
    since,
    until,
    intervalMs,
    intervals,
    codes,
    stats: {
      total: callStats(total, allMessages),
      tools: [...tools]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([tool, counts]) => ({ tool, ...callStats(counts, messages.get(tool) ?? new Map()) })),
    },
  };
}

/**
 * Rollups keep calls and errors, not each status, so `statuses` is empty (the overview shows no
 * per-status figures; GET /v1/audit/stats has them from the rows).
 */
function callStats(counts: RollupCounts, messages: ReadonlyMap<string, number>): CallStats {
  return {
    calls: counts.calls,
    errors: counts.errors,
    errorRate: counts.calls === 0 ? 0 : counts.errors / counts.calls,
    p50Ms: percentileOf(counts, 50),
    p95Ms: percentileOf(counts, 95),
    statuses: {},
    topMessages: topMessages(messages),
  };
}
