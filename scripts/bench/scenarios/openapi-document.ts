/**
 * Worker CPU of `GET /openapi.json` for a key that may use 500 synthetic tools and the built-in
 * ones (target < 5 ms): the document with one operation per tool, and with `only=tools`.
 *
 * Measured as tools-listing.ts measures `GET /v1/tools`: one request in flight, the route
 * against a bare twin answering the identical bytes (so HTTP, loopback and body transfer cancel
 * out). The check is on workerd's CPU per request from /proc, route minus twin; where /proc is
 * missing it falls back to the latency difference.
 */
import { BARE_OPENAPI_PATH, OPENAPI_PATH } from "../requests.ts";
import { alternatingRounds, paired, perRound, type ContenderRounds } from "../rounds.ts";
import type { Row, Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_CPU_MS = 5;
const ROUNDS = 3;
const ROUND_MS = 2_000;

const QUERIES = [
  { query: "", what: "routes and every tool" },
  { query: "?only=tools", what: "tools only" },
];

export const openapiDocument: Scenario = {
  id: "openapi-document",
  title: "GET /openapi.json for a key with 500 synthetic tools: Worker CPU per request",
  async run(ctx) {
    const rounds = Math.min(ROUNDS, ctx.settings.rounds);
    const roundMs = Math.min(ROUND_MS, ctx.settings.roundMs);
    const contenders = QUERIES.flatMap(({ query }) => [
      { label: `GET ${OPENAPI_PATH}${query}`, request: { method: "GET" as const, path: `${OPENAPI_PATH}${query}` } },
      { label: `  bare ${BARE_OPENAPI_PATH}${query}`, request: { method: "GET" as const, path: `${BARE_OPENAPI_PATH}${query}` } },
    ]);
    const figures = await alternatingRounds(ctx, contenders, { concurrency: 1, rounds, roundMs, warmupMs: ctx.settings.warmupMs });
    const rows: Row[] = [];
    const checks = [];
    for (let q = 0; q < QUERIES.length; q++) {
      const route = figures[2 * q];
      const bare = figures[2 * q + 1];
      if (route === undefined || bare === undefined) throw new Error("bench: openapi-document lost a contender");
      const serverMs = median(paired(route.p50Ms, bare.p50Ms, (r, b) => r - b));
      const cpuDeltaMs = median(paired(route.serverCpuUs, bare.serverCpuUs, (r, b) => (r - b) / 1000));
      rows.push(row(route, serverMs, cpuDeltaMs), row(bare, Number.NaN, Number.NaN));
      const measured = Number.isFinite(cpuDeltaMs) ? { ms: cpuDeltaMs, how: "workerd CPU" } : { ms: serverMs, how: "HTTP estimate" };
      checks.push({
        label: `GET ${OPENAPI_PATH}${QUERIES[q]?.query ?? ""} (${QUERIES[q]?.what ?? ""}) ${measured.how}`,
        target: `< ${MAX_CPU_MS} ms`,
        actual: `${measured.ms.toFixed(2)} ms`,
        pass: measured.ms < MAX_CPU_MS,
      });
    }
    return {
      method: `1 in flight, ${rounds} alternating rounds of ${roundMs / 1000} s; CPU delta = median over rounds of workerd CPU per request, route minus bare twin; server ms = same for p50 latency`,
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
