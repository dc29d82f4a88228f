/**
 * The requests the benchmark sends, shared by the bench Worker (which replays them once to
 * build its bare routes) and the load generator, so both sides agree on the bytes.
 */

/**
 * A POST /v1/tool-calls body of `count` OpenAI tool calls of one tool (ids c1, c2, …), with
 * any other body fields (`max_parallel_calls`, say) after them.
 */
export function toolCallsBody(name: string, args: Record<string, unknown>, count = 1, fields: Record<string, unknown> = {}): string {
  const argumentsJson = JSON.stringify(args);
  const toolCalls = Array.from({ length: count }, (_, i) => ({ id: `c${i + 1}`, type: "function", function: { name, arguments: argumentsJson } }));
  return JSON.stringify({ tool_calls: toolCalls, ...fields });
}

/** One trivial call: the smallest request that runs the whole dispatch pipeline. */
export const ECHO_CALL_BODY = toolCallsBody("echo", { text: "hi" });

export const TOOL_CALLS_PATH = "/v1/tool-calls";
export const TOOLS_PATH = "/v1/tools";

/** Same request bytes in, the bytes POST /v1/tool-calls answers out, nothing in between. */
export const BARE_CALL_PATH = "/__bench/bare-call";
/** Answers the bytes GET /v1/tools answers, so only the listing's own work differs. */
export const BARE_TOOLS_PATH = "/__bench/bare-tools";
export const OPENAPI_PATH = "/openapi.json";
/** Answers the bytes GET /openapi.json answers the same key, so only the document's own work differs. */
export const BARE_OPENAPI_PATH = "/__bench/bare-openapi";
/**
 * Which app of the bench Worker answers (worker.ts): absent or FULL_PIPELINE, the app as
 * shipped (`createApp()`: real authentication, rate limiter Durable Object, audit queue);
 * GATEWAY_PIPELINE, the real gateway layer with authentication, rate limits and audit switched
 * off; CORE_PIPELINE, the same with the core pipeline alone running the calls
 * (core-run-calls.ts). A header rather than a path prefix, because rewriting the URL means a
 * new Request per request, which cost 12-24 us of workerd CPU when measured.
 */
export const PIPELINE_HEADER = "x-bench-pipeline";
export const FULL_PIPELINE = "full";
export const GATEWAY_PIPELINE = "gateway";
export const CORE_PIPELINE = "core";
/**
 * The full app without its audit (its per-call log lines and spans kept, core-stages.ts
 * observeOnly), with an audit stage that builds the records but sends none and writes no
 * telemetry, or without its rate limits: what each part costs (scenarios/full-breakdown.ts).
 */
export const FULL_NO_AUDIT_PIPELINE = "full-no-audit";
export const FULL_BUILD_AUDIT_PIPELINE = "full-build-audit";
export const FULL_NO_LIMITS_PIPELINE = "full-no-limits";
/**
 * The serving path (FULL_SERVING_PIPELINE: records to the consumer-less sink) of a full app whose
 * audit stage logs and traces nothing per call (src/tracing/observe-calls.ts): beside the serving
 * path, what per-call telemetry costs a request.
 */
export const FULL_NO_TELEMETRY_PIPELINE = "full-no-telemetry";
/**
 * The full app as shipped, its audit records sent to a queue no consumer reads (serve.ts
 * AUDIT_SINK_BINDING): the serving path's CPU, without the consumer's work that production runs
 * as its own invocation (scenarios/full-overhead.ts).
 */
export const FULL_SERVING_PIPELINE = "full-serving";
/** The binding of that consumer-less queue (serve.ts gives the bench Worker it). */
export const AUDIT_SINK_BINDING = "BENCH_AUDIT_SINK";

/**
 * Bench-only, for the cost of the audit path alone (scenarios/audit-cost.ts): POST with
 * `?records=N&group=G` builds N echo-call audit records with the real builder and then, per
 * AUDIT_STAGE_PARAM: `build` stops there; `queue` sends them through the real AuditBuffer to
 * the audit queue, G to a flush (the consumer then writes them to D1); `d1` writes them straight
 * to D1 with the consumer's writer, G to a batch. Answers `{"records": N}` when done.
 */
export const AUDIT_PATH_PATH = "/__bench/audit-path";
export const AUDIT_STAGE_PARAM = "stage";
export const AUDIT_STAGES = ["build", "queue", "d1"] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

/**
 * Bench-only: POST with `?records=N` (and `failed=1` for failed calls, whose error code a
 * partial index may take) writes N echo-call audit records with the consumer's writer and
 * answers the rows written per record (rows-written.ts).
 */
export const AUDIT_ROWS_WRITTEN_PATH = "/__bench/audit-rows-written";

/** Bench-only: `{"rows": n}`, the number of rows in D1's audit_log. */
export const AUDIT_COUNT_PATH = "/__bench/audit-count";
/** Bench-only: `?step=none|read|uncached|lookup`, one per_user call's own-token lookup by step (own-token-routes.ts). */
export const OWN_TOKEN_PATH = "/__bench/own-token";
/** Bench-only: `availability.stats()` of the Worker's isolate (src/registry/availability.ts). */
export const AVAILABILITY_STATS_PATH = "/__bench/availability-stats";
/** The audit group commit's groups so far (audit-group-commit.ts stats()). */
export const AUDIT_GROUPS_PATH = "/__bench/audit-groups";
export const KEYS_PATH = "/v1/keys";

export const JSON_HEADERS = { "content-type": "application/json" } as const;

/** Bench-only: `?rows=N&since=ms&until=ms` writes N audit records spread over the window (admin-overview-routes.ts). */
export const AUDIT_SEED_PATH = "/__bench/audit-seed";
/** Bench-only: a signed-in admin console cookie for the bootstrap admin token, as `{"cookie": "name=value"}`. */
export const ADMIN_COOKIE_PATH = "/__bench/admin-cookie";
/** Bench-only: the admin overview's reads for the last day, without the page. */
export const ADMIN_OVERVIEW_SQL_PATH = "/__bench/admin-overview-sql";
/** The admin console's overview of the last day. */
export const ADMIN_OVERVIEW_PATH = "/admin?window=day";
/** Bench-only: `?times=N` reads the overview once and renders its page N times. */
export const ADMIN_OVERVIEW_RENDER_PATH = "/__bench/admin-overview-render";
