/**
 * A route against its bare twin (a route answering the identical bytes without the work), one
 * request in flight, in alternating rounds: the way tools-listing.ts and openapi-document.ts
 * estimate what a large answer costs the Worker. workerd's clock only advances on I/O, so the
 * Worker cannot time itself; the twin pays the same HTTP, loopback and client costs, so the
 * difference is the route's own work. Two figures per query: p50 latency, route minus twin
 * ("server ms"), and workerd's CPU per request from /proc, route minus twin ("CPU delta").
 */

import { paired } from "./paired-runs.ts";
import { alternatingRounds, type ContenderRounds, perRound } from "./rounds.ts";
import type { BenchContext, Check, Row, ScenarioReport } from "./scenario.ts";
import { median } from "./stats.ts";

/**
 * 600 ms rounds give several hundred samples at one in flight, plenty for a p50, and keep the
 * full bench within its 4 minutes (issue 16): tools-listing and openapi-document alternate ten
 * contenders between them.
 */
const ROUNDS = 3;
const ROUND_MS = 600;

export interface TwinQuery {
  /** Appended to both paths, e.g. `?defer=true`. */
  query: string;
  what: string;
}

export interface TwinFigures {
  query: TwinQuery;
  serverMs: number;
  cpuDeltaMs: number;
}

/** Measures `path` against `barePath` for each query and reports them, with `check` deciding each target. */
export async function bareTwinRounds(
  ctx: BenchContext,
  path: string,
  barePath: string,
  queries: readonly TwinQuery[],
  check: (figures: TwinFigures) => Check,
): Promise<ScenarioReport> {
  const rounds = Math.min(ROUNDS, ctx.settings.rounds);
  const roundMs = Math.min(ROUND_MS, ctx.settings.roundMs);
  const contenders = queries.flatMap(({ query }) => [
    { label: `GET ${path}${query}`, request: { method: "GET" as const, path: `${path}${query}` } },
    { label: `  bare ${barePath}${query}`, request: { method: "GET" as const, path: `${barePath}${query}` } },
  ]);
  const figures = await alternatingRounds(ctx, contenders, { concurrency: 1, rounds, roundMs, warmupMs: ctx.settings.warmupMs });
  const rows: Row[] = [];
  const checks: Check[] = [];
  queries.forEach((query, q) => {
    const route = figures[2 * q];
    const bare = figures[2 * q + 1];
    if (route === undefined || bare === undefined) throw new Error(`bench: ${path} lost a contender`);
    const serverMs = median(paired(route.p50Ms, bare.p50Ms, (r, b) => r - b));
    const cpuDeltaMs = median(paired(route.serverCpuUs, bare.serverCpuUs, (r, b) => (r - b) / 1000));
    rows.push(row(route, serverMs, cpuDeltaMs), row(bare, Number.NaN, Number.NaN));
    checks.push(check({ query, serverMs, cpuDeltaMs }));
  });
  return {
    method: `1 in flight, ${rounds} alternating rounds of ${roundMs / 1000} s; server ms = median over rounds of (p50 route - p50 bare twin); CPU delta = same for workerd CPU per request`,
    columns: [
      { key: "p50", header: "p50 ms", digits: 2 },
      { key: "p99", header: "p99 ms", digits: 2 },
      { key: "serverMs", header: "server ms", digits: 2 },
      { key: "cpuDeltaMs", header: "CPU delta ms", digits: 2 },
    ],
    rows,
    checks,
  };
}

function row(figures: ContenderRounds, serverMs: number, cpuDeltaMs: number): Row {
  return {
    label: figures.label,
    values: { p50: median(figures.p50Ms), p99: median(figures.p99Ms), serverMs, cpuDeltaMs },
    note: `${(figures.bodyBytes / 1024).toFixed(1)} KiB answer`,
    perRound: perRound(figures),
  };
}
