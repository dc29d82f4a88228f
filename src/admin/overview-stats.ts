/**
 * What the overview page charts, aggregated in SQL over a time window of the audit log: calls
 * and errors per interval, the top error codes, and (audit-stats.ts) counts, error rate and
 * duration percentiles overall and per tool. Every statement reads a range of the primary key
 * (at, rid); only aggregates, a few dozen rows at most, come back to the Worker.
 */

import type { AuditDatabase } from "../audit/audit-database.ts";
import { withAuditLayout } from "../audit/audit-layout.ts";
import { FAILED_STATUSES } from "../audit/audit-record.ts";
import { AUDIT_ROLLUPS_TABLE, HOUR_MS } from "../audit/audit-rollups.ts";
import { shardsToRead } from "../audit/audit-shards.ts";
import { type AuditStats, auditStats } from "../audit/audit-stats.ts";
import { auditStatsSharded } from "../audit/audit-stats-sharded.ts";
import { overviewFromRollups } from "./overview-rollups.ts";
import type { ErrorCodeCount, Interval, Overview } from "./overview-types.ts";

export type { ErrorCodeCount, Interval, Overview } from "./overview-types.ts";

/** The windows the overview offers, each cut into intervals for the calls chart. */
export const OVERVIEW_WINDOWS = {
  hour: { label: "Last hour", ms: 3_600_000, intervals: 12 },
  day: { label: "Last day", ms: 86_400_000, intervals: 24 },
  week: { label: "Last week", ms: 7 * 86_400_000, intervals: 28 },
} as const;
export type OverviewWindow = keyof typeof OVERVIEW_WINDOWS;
export const isOverviewWindow = (value: string | undefined): value is OverviewWindow => value !== undefined && Object.hasOwn(OVERVIEW_WINDOWS, value);

/** Error codes listed, most frequent first. */
export const TOP_ERROR_CODES = 5;

const failed = FAILED_STATUSES.map((s) => `'${s}'`).join(", ");

/** The statements one shard runs, exported for the query-plan test. */
export function overviewStatements(table: string, since: number, until: number, intervalMs: number): { sql: string; params: number[] }[] {
  return [
    {
      sql: `SELECT CAST((at - ?) / ? AS INTEGER) AS slot, COUNT(*) AS calls, SUM(status IN (${failed})) AS errors FROM ${table} WHERE at >= ? AND at < ? GROUP BY slot`,
      // D1 may bind a JavaScript number as REAL, so the division is truncated explicitly.
      params: [since, intervalMs, since, until],
    },
    {
      sql: `SELECT error_code AS code, COUNT(*) AS calls FROM ${table} WHERE at >= ? AND at < ? AND error_code IS NOT NULL GROUP BY error_code`,
      params: [since, until],
    },
  ];
}

async function shardOverview(db: AuditDatabase, since: number, until: number, intervalMs: number) {
  return withAuditLayout(async (layout) => {
    const [slots, codes] = await db.batch(overviewStatements(layout.table, since, until, intervalMs).map(({ sql, params }) => db.prepare(sql).bind(...params)));
    return {
      slots: (slots?.results ?? []) as { slot: number; calls: number; errors: number | null }[],
      codes: (codes?.results ?? []) as { code: string; calls: number }[],
    };
  });
}

/** The TOP_ERROR_CODES most frequent of `codes` (calls per code), ties in code order. */
export function topErrorCodes(codes: ReadonlyMap<string, number>): ErrorCodeCount[] {
  return [...codes]
    .map(([code, calls]) => ({ code, calls }))
    .sort((a, b) => b.calls - a.calls || a.code.localeCompare(b.code))
    .slice(0, TOP_ERROR_CODES);
}

/** Stats of every key's calls in [since, until), over every audit shard. */
export function windowStats(env: Env, since: number, until: number): Promise<AuditStats> {
  const shards = shardsToRead(env).map((shard) => shard.db);
  const [only] = shards;
  const filters = { since, until };
  return shards.length === 1 && only !== undefined ? auditStats(only, filters) : auditStatsSharded(shards, filters);
}

/**
 * The overview of the window ending at `now`, over every audit shard. The day and week windows,
 * whose intervals are whole hours, read the hourly rollups (overview-rollups.ts); the hour
 * window's 5-minute bars are finer than a rollup, so it still reads the hour's audit rows.
 */
export async function overviewStats(env: Env, window: OverviewWindow, now: number): Promise<Overview> {
  const { ms, intervals: count } = OVERVIEW_WINDOWS[window];
  const intervalMs = ms / count;
  // Intervals end on a whole interval, so a reload a moment later shows the same bars.
  const until = Math.ceil(now / intervalMs) * intervalMs;
  const since = until - ms;
  if (intervalMs % HOUR_MS === 0) {
    try {
      const { codes, ...overview } = await overviewFromRollups(env, { since, until, intervalMs, count });
      return { ...overview, topErrorCodes: topErrorCodes(codes) };
    } catch (error) {
      // A Worker deployed ahead of 0012_audit_rollups.sql reads the rows, as before.
      if (!String(error).includes(`no such table: ${AUDIT_ROLLUPS_TABLE}`)) throw error;
    }
  }
  const shards = shardsToRead(env).map((shard) => shard.db);
  const [stats, perShard] = await Promise.all([windowStats(env, since, until), Promise.all(shards.map((db) => shardOverview(db, since, until, intervalMs)))]);
  const intervals: Interval[] = Array.from({ length: count }, (_, i) => ({ start: since + i * intervalMs, calls: 0, errors: 0 }));
  const codes = new Map<string, number>();
  for (const shard of perShard) {
    for (const row of shard.slots) {
      const interval = intervals[row.slot];
      if (interval === undefined) continue;
      interval.calls += row.calls;
      interval.errors += row.errors ?? 0;
    }
    for (const row of shard.codes) codes.set(row.code, (codes.get(row.code) ?? 0) + row.calls);
  }
  return { since, until, intervalMs, intervals, stats, topErrorCodes: topErrorCodes(codes) };
}
