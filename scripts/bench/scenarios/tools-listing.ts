/**
 * Server time of `GET /v1/tools` with 500 synthetic tools registered (target < 2 ms), listed in
 * full, by toolset, and deferred (`?defer=true`: only the core tools and tool_search).
 *
 * Latency at one request in flight against a bare twin answering the identical body
 * (bare-twin-rounds.ts); workerd's CPU time per request, route minus twin, is shown beside it
 * as a cross-check.
 */
import { bareTwinRounds } from "../bare-twin-rounds.ts";
import { BARE_TOOLS_PATH, TOOLS_PATH } from "../requests.ts";
import type { Scenario } from "../scenario.ts";
import { BENCH_TOOLSET } from "../synthetic-tools.ts";

const MAX_SERVER_MS = 2;

const QUERIES = [
  { query: "", what: "all tools" },
  { query: `?toolset=${BENCH_TOOLSET}`, what: `toolset ${BENCH_TOOLSET}` },
  // The deferred listing: the core tools and tool_search out of the same 500-tool catalog.
  { query: "?defer=true", what: "deferred" },
];

export const toolsListing: Scenario = {
  id: "tools-listing",
  title: "GET /v1/tools with 500 synthetic tools: server time estimated over HTTP",
  run: (ctx) =>
    bareTwinRounds(ctx, TOOLS_PATH, BARE_TOOLS_PATH, QUERIES, ({ query, serverMs }) => ({
      label: `GET ${TOOLS_PATH}${query.query} server time (HTTP estimate)`,
      target: `< ${MAX_SERVER_MS} ms`,
      actual: `${serverMs.toFixed(2)} ms`,
      pass: serverMs < MAX_SERVER_MS,
    })),
};
