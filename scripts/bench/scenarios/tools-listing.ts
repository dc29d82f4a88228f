/**
 * Server time of `GET /v1/tools` with 500 synthetic tools registered (target < 2 ms), listed in
 * full, by toolset, and deferred (`?defer=true`: only the core tools and tool_search).
 *
 * workerd's clock only advances on I/O, so the Worker cannot time itself. Instead: latency at
 * one request in flight (no queueing), p50 of the route minus p50 of a bare route answering
 * the identical body. Both pay the same HTTP, loopback and client costs; the difference is the
 * route's own work (resolution, definitions, formatting, JSON.stringify). workerd's CPU time
 * per request (from /proc), route minus bare twin, is shown beside it as a cross-check.
 */
import { BARE_TOOLS_PATH, TOOLS_PATH } from "../requests.ts";
import { alternatingRounds, paired, perRound, type ContenderRounds } from "../rounds.ts";
import type { Row, Scenario } from "../scenario.ts";
import { median } from "../stats.ts";
import { BENCH_TOOLSET } from "../synthetic-tools.ts";

const MAX_SERVER_MS = 2;
/** ~1,000 samples a round at one in flight is plenty for a p50, and keeps the run short. */
const ROUNDS = 3;
const ROUND_MS = 2_000;

const QUERIES = [
  { query: "", what: "all tools" },
  { query: `?toolset=${BENCH_TOOLSET}`, what: `toolset ${BENCH_TOOLSET}` },
  // The deferred listing: the core tools and tool_search out of the same 500-tool catalog.
  { query: "?defer=true", what: "deferred" },
];

export const toolsListing: Scenario = {
  id: "tools-listing",
  title: "GET /v1/tools with 500 synthetic tools: server time estimated over HTTP",
  async run(ctx) {
    const rounds = Math.min(ROUNDS, ctx.settings.rounds);
    const roundMs = Math.min(ROUND_MS, ctx.settings.roundMs);
    const contenders = QUERIES.flatMap(({ query }) => [
      { label: `GET ${TOOLS_PATH}${query}`, request: { method: "GET" as const, path: `${TOOLS_PATH}${query}` } },
      { label: `  bare ${BARE_TOOLS_PATH}${query}`, request: { method: "GET" as const, path: `${BARE_TOOLS_PATH}${query}` } },
    ]);
    const figures = await alternatingRounds(ctx, contenders, { concurrency: 1, rounds, roundMs, warmupMs: ctx.settings.warmupMs });
    const rows: Row[] = [];
    const checks = [];
    for (let q = 0; q < QUERIES.length; q++) {
      const route = figures[2 * q];
      const bare = figures[2 * q + 1];
      if (route === undefined || bare === undefined) throw new Error("bench: tools-listing lost a contender");
      const serverMs = median(paired(route.p50Ms, bare.p50Ms, (r, b) => r - b));
      const cpuDeltaMs = median(paired(route.serverCpuUs, bare.serverCpuUs, (r, b) => (r - b) / 1000));
      rows.push(row(route, serverMs, cpuDeltaMs), row(bare, Number.NaN, Number.NaN));
      checks.push({
        label: `GET ${TOOLS_PATH}${QUERIES[q]?.query ?? ""} server time (HTTP estimate)`,
        target: `< ${MAX_SERVER_MS} ms`,
        actual: `${serverMs.toFixed(2)} ms`,
        pass: serverMs < MAX_SERVER_MS,
      });
    }
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
  },
};

function row(figures: ContenderRounds, serverMs: number, cpuDeltaMs: number): Row {
  return {
    label: figures.label,
    values: { p50: median(figures.p50Ms), p99: median(figures.p99Ms), serverMs, cpuDeltaMs },
    note: `${(figures.bodyBytes / 1024).toFixed(1)} KiB answer`,
    perRound: perRound(figures),
  };
}
