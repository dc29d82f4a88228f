/**
 * Worker CPU of `GET /openapi.json` for a key that may use 500 synthetic tools and the built-in
 * ones (target < 5 ms): the document with one operation per tool, and with `only=tools`.
 *
 * Measured as tools-listing.ts measures `GET /v1/tools`, against a bare twin answering the
 * identical bytes (bare-twin-rounds.ts). The check is on workerd's CPU per request from /proc,
 * route minus twin; where /proc is missing it falls back to the latency difference.
 */
import { bareTwinRounds } from "../bare-twin-rounds.ts";
import { BARE_OPENAPI_PATH, OPENAPI_PATH } from "../requests.ts";
import type { Scenario } from "../scenario.ts";

const MAX_CPU_MS = 5;

const QUERIES = [
  { query: "", what: "routes and every tool" },
  { query: "?only=tools", what: "tools only" },
];

export const openapiDocument: Scenario = {
  id: "openapi-document",
  title: "GET /openapi.json for a key with 500 synthetic tools: Worker CPU per request",
  run: (ctx) =>
    bareTwinRounds(ctx, OPENAPI_PATH, BARE_OPENAPI_PATH, QUERIES, ({ query, serverMs, cpuDeltaMs }) => {
      const measured = Number.isFinite(cpuDeltaMs) ? { ms: cpuDeltaMs, how: "workerd CPU" } : { ms: serverMs, how: "HTTP estimate" };
      return {
        label: `GET ${OPENAPI_PATH}${query.query} (${query.what}) ${measured.how}`,
        target: `< ${MAX_CPU_MS} ms`,
        actual: `${measured.ms.toFixed(2)} ms`,
        pass: measured.ms < MAX_CPU_MS,
      };
    }),
};
