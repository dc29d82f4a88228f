/**
 * The benchmark Worker: the real app, 500 synthetic tools in their own toolset, and "bare"
 * routes in the same Hono app that answer the same bytes as the measured routes without doing
 * their work. A bare route is the ceiling (routing, HTTP and body transfer only), so the
 * difference between a route and its bare twin is what the app itself costs.
 *
 * It holds three apps, picked per request by PIPELINE_HEADER (requests.ts), so each layer's
 * cost is one app against another in the same isolate:
 * - full: `createApp()`, exactly as the Worker entry builds it: bearer auth (D1 key lookup
 *   behind its cache), tool access policy, the RateLimiter Durable Object, the audit queue.
 * - gateway: the real batch runner, with auth, rate limits and audit switched off
 *   (core-stages.ts).
 * - core: as gateway, with the core pipeline alone running calls (core-run-calls.ts).
 * - full-no-audit, full-build-audit, full-no-limits: the full app less one stage (or, for
 *   audit, less the sending), for the breakdown of its cost.
 * - full-serving: the full app with its audit queue swapped for one no consumer reads, so its
 *   CPU is the serving path's alone (issue 33).
 * - full-no-telemetry: the same serving path with no per-call log line or span
 *   (src/tracing/observe-calls.ts), for what telemetry costs.
 * Every request pays the one header lookup, so all sides pay the same routing cost.
 *
 * Like src/index.ts it exports the Durable Object classes and consumes the audit queues, so
 * Miniflare runs the real Durable Object, queue and consumer, in this same workerd process.
 * It also registers `bench_sleep` (sleep-tool.ts) and `bench_checked` (checked-tool.ts), and
 * serves bench-only routes: the audit_log row count, the availability cache's stats, the audit
 * path by stage, the rows D1 writes per audit record (rows-written.ts), and the admin overview's
 * seeding and sign-in (admin-overview-routes.ts); before any app, the requests that measure the
 * runtime's own costs (runtime-costs-route.ts) and the full collection that follows every measured
 * round (collect-garbage-route.ts).
 *
 * Bare bodies are captured by replaying the real route once, on the first bare request (the
 * bench's warm-up), because module scope has no env and may not do I/O.
 */
// tsconfig.node.json checks everything under scripts/ with Node's types only; this file runs
// in workerd and needs the Worker globals (Env, ExportedHandler) too.
/// <reference path="../../worker-configuration.d.ts" />
import type { Context, ExecutionContext } from "hono";
import "../../src/registry/tools.gen.ts";
import { runGatewayWith } from "../../src/agent/run-gateway.ts";
import { RunObject } from "../../src/agent/run-object.ts";
import { runApprovedWith } from "../../src/approvals/run-approved.ts";
import { SessionObject } from "../../src/approvals/session.ts";
import { AuditBuffer } from "../../src/audit/audit-buffer.ts";
import { auditGroupCommit } from "../../src/audit/audit-group-commit.ts";
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { handleAuditQueue } from "../../src/audit/handle-audit-queue.ts";
import { createRecordBatch } from "../../src/audit/record-batch.ts";
import { toAuditRecord } from "../../src/audit/to-audit-record.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { createParts } from "../../src/compose.ts";
import type { ErrorCode } from "../../src/errors/tool-failure.ts";
import { type AppOptions, createApp } from "../../src/http/app.ts";
import { API_SOURCES } from "../../src/openapi-sources/apis.gen.ts";
import { registerBuildTimeSources } from "../../src/openapi-sources/build-time-sources.ts";
import { availability } from "../../src/registry/availability.ts";
import { registry } from "../../src/registry/registry.ts";
import { installPetShop } from "../hostile/pet-shop.ts";
import { serveWorstInputs } from "../hostile/worst-inputs-route.ts";
import { adminOverviewRoutes } from "./admin-overview-routes.ts";
import { registerCheckedTool } from "./checked-tool.ts";
import { serveCollectGarbage } from "./collect-garbage-route.ts";
import { coreRunCalls, directExecutor } from "./core-run-calls.ts";
import { buildRecordsOnly, noCharge, noRecord, observeOnly, setAdminPrincipal } from "./core-stages.ts";
import { ownTokenRoutes } from "./own-token-routes.ts";
import {
  AUDIT_COUNT_PATH,
  AUDIT_GROUPS_PATH,
  AUDIT_PATH_PATH,
  AUDIT_ROWS_WRITTEN_PATH,
  AUDIT_SINK_BINDING,
  AUDIT_STAGE_PARAM,
  AVAILABILITY_STATS_PATH,
  BARE_CALL_PATH,
  BARE_OPENAPI_PATH,
  BARE_TOOLS_PATH,
  CORE_PIPELINE,
  ECHO_CALL_BODY,
  FULL_BUILD_AUDIT_PIPELINE,
  FULL_NO_AUDIT_PIPELINE,
  FULL_NO_LIMITS_PIPELINE,
  FULL_NO_TELEMETRY_PIPELINE,
  FULL_SERVING_PIPELINE,
  GATEWAY_PIPELINE,
  OPENAPI_PATH,
  PIPELINE_HEADER,
  TOOL_CALLS_PATH,
  TOOLS_PATH,
} from "./requests.ts";
import { measureRowsWritten } from "./rows-written.ts";
import { serveRuntimeCosts } from "./runtime-costs-route.ts";
import { serveScheduleBench } from "./schedule-bench.ts";
import { installScriptedModel } from "./scripted-model.ts";
import { registerSleepTool } from "./sleep-tool.ts";
import { registerSyntheticTools } from "./synthetic-tools.ts";

export { RateLimiter } from "../../src/rate-limit/rate-limiter.ts";
/** The session's object, handed the way to run an approved call, as the Worker entry does. */
export class Session extends SessionObject {
  protected override readonly runApproved = runApprovedWith(createParts().pipeline);
}
export { McpReplies } from "../../src/mcp/replies/mcp-replies.ts";
export { MemoryStore } from "../../src/memory/memory-store.ts";
/** The agent run's object, as the Worker entry builds it; its model is scripted in this isolate. */
export class Run extends RunObject {
  protected override readonly gateway = runGatewayWith(createParts());
}
/** The schedule's object, with the bench's way to fire it now (schedule-bench.ts). */
export { BenchSchedule as Schedule } from "./schedule-bench.ts";

// As the Worker entry does (src/index.ts): the build-time OpenAPI sources' tools.
registerBuildTimeSources(registry, API_SOURCES);
installScriptedModel();
// Answers only https://petstore.example, whose tools only the hostile suite makes available.
installPetShop();

const ECHO_ARGUMENTS = JSON.stringify({ text: "hi" });

/** The record an echo call of the full app makes (to-audit-record.ts), built the same way. */
function echoRecord(i: number, errorCode?: ErrorCode): AuditRecord {
  const outcome = {
    callId: `c${i}`,
    tool: "echo",
    toolset: "core",
    errorCode,
    envelope: undefined,
    durationMs: 0,
    attempts: 1,
    coercions: [],
    truncated: false,
    resultChars: 13,
  };
  return toAuditRecord(outcome, ECHO_ARGUMENTS, { keyId: "bench-audit-path", sessionId: "bench-audit-path", policy: { decision: "allow", rule: "default" } });
}

interface Captured {
  body: string;
  contentType: string;
}

/**
 * The app with `options`, plus the bare routes and the bench-only reads. Every app gets them,
 * so their route tables are the same size and only the measured stages differ.
 */
function benchApp(replaced: Parameters<typeof createParts>[0], options: AppOptions = {}): ReturnType<typeof createApp> {
  const app = createApp(createParts(replaced), options);
  const captured = new Map<string, Promise<Captured>>();

  /**
   * Runs the real route once per distinct request and keeps its answer; later calls reuse it.
   * The request is made only then (`makeRequest`), so a bare route does no more per request than
   * a map lookup and its answer: it is the reference the routes are measured against.
   */
  function capture(key: string, makeRequest: () => Request, env: Env, ctx: ExecutionContext): Promise<Captured> {
    let pending = captured.get(key);
    if (pending === undefined) {
      pending = (async () => {
        const request = makeRequest();
        const response = await app.fetch(request, env, ctx);
        if (response.status !== 200) throw new Error(`bench: replaying ${request.url} answered ${response.status}: ${await response.text()}`);
        return { body: await response.text(), contentType: response.headers.get("content-type") ?? "application/json" };
      })();
      captured.set(key, pending);
    }
    return pending;
  }

  // The body is read and parsed, then dropped: what the reference claims to hold is routing, HTTP
  // and body transfer, and a body left unread made the pipeline look slower by the transfer it
  // never did (issue 33). Bare routes are outside /v1, so they skip authentication; the replay
  // passes the key on.
  app.post(BARE_CALL_PATH, async function bareCall(c) {
    JSON.parse(await c.req.text());
    const makeRequest = () =>
      new Request(new URL(TOOL_CALLS_PATH, c.req.url), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: c.req.header("authorization") ?? "" },
        body: ECHO_CALL_BODY,
      });
    const { body, contentType } = await capture("call", makeRequest, c.env, c.executionCtx);
    return c.body(body, 200, { "content-type": contentType });
  });

  /** A GET bare twin: answers what `realPath` answers the same key and query, replayed once. */
  const bareGet = (realPath: string) =>
    async function bareGet(c: Context<{ Bindings: Env }>) {
      const url = new URL(c.req.url);
      url.pathname = realPath;
      const makeRequest = () => new Request(url, { headers: { authorization: c.req.header("authorization") ?? "" } });
      const { body, contentType } = await capture(`${realPath}${url.search}`, makeRequest, c.env, c.executionCtx);
      return c.body(body, 200, { "content-type": contentType });
    };
  app.get(BARE_TOOLS_PATH, bareGet(TOOLS_PATH));
  app.get(BARE_OPENAPI_PATH, bareGet(OPENAPI_PATH));

  app.get(AUDIT_COUNT_PATH, async function auditCount(c) {
    const since = c.req.query("since");
    const rows = await (since === undefined
      ? c.env.DB.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE}`)
      : c.env.DB.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE at >= ?`).bind(Number(since))
    ).first<number>("n");
    return c.json({ rows });
  });

  app.post(AUDIT_PATH_PATH, async function auditPath(c) {
    const records = Number(c.req.query("records"));
    const group = Number(c.req.query("group"));
    const stage = c.req.query(AUDIT_STAGE_PARAM);
    if (!(records > 0 && group > 0) || (stage !== "build" && stage !== "queue" && stage !== "d1"))
      return c.json({ error: "records, group and stage=build|queue|d1" }, 400);
    for (let sent = 0; sent < records; sent += group) {
      const built = [];
      for (let i = sent; i < Math.min(records, sent + group); i++) built.push(echoRecord(i));
      if (stage === "d1") await writeAuditRecords(c.env.DB, built);
      if (stage === "queue") {
        const buffer = new AuditBuffer();
        for (const record of built) buffer.add(record);
        await buffer.flush(c.env);
      }
    }
    return c.json({ records });
  });

  app.post(AUDIT_ROWS_WRITTEN_PATH, async function auditRowsWritten(c) {
    const records = Number(c.req.query("records"));
    const failed = c.req.query("failed") === "1";
    if (!(records > 0)) return c.json({ error: "records=N, and failed=1 for failed calls" }, 400);
    const built = Array.from({ length: records }, (_, i) => echoRecord(i, failed ? "UPSTREAM_ERROR" : undefined));
    return c.json(await measureRowsWritten(c.env.DB, built));
  });

  app.get(AUDIT_GROUPS_PATH, function auditGroups(c) {
    return c.json(auditGroupCommit.stats());
  });

  app.get(AVAILABILITY_STATS_PATH, function availabilityStats(c) {
    return c.json(availability.stats());
  });

  adminOverviewRoutes(app);
  ownTokenRoutes(app);
  return app;
}

registerSyntheticTools(registry);
registerSleepTool(registry);
registerCheckedTool(registry);
const fullApp = benchApp({});
const fullNoAuditApp = benchApp({ batch: { recordBatch: observeOnly } });
const fullBuildAuditApp = benchApp({ batch: { recordBatch: buildRecordsOnly } });
const fullNoLimitsApp = benchApp({ batch: { chargeCalls: noCharge } });
const fullNoTelemetryApp = benchApp({ batch: { recordBatch: createRecordBatch(auditGroupCommit) } });
const gatewayApp = benchApp({ batch: { chargeCalls: noCharge, recordBatch: noRecord } }, { authenticate: setAdminPrincipal });
const coreApp = benchApp(
  { batch: { runCalls: coreRunCalls, chargeCalls: noCharge, recordBatch: noRecord }, pipeline: { execute: directExecutor } },
  { authenticate: setAdminPrincipal },
);

/**
 * `env` with AUDIT_QUEUE pointing at the consumer-less sink, made once per env: the config and
 * the audit group commit cache by object, and a new one per request would defeat both.
 */
const servingEnvs = new WeakMap<Env, Env>();
function servingEnv(env: Env): Env {
  let swapped = servingEnvs.get(env);
  if (swapped === undefined) {
    // A binding serve.ts adds for the bench alone, so not in the generated Env type.
    const sink: unknown = Reflect.get(env, AUDIT_SINK_BINDING);
    if (sink === undefined) throw new Error(`bench: the Worker has no ${AUDIT_SINK_BINDING} binding (scripts/bench/serve.ts gives it one)`);
    swapped = Object.create(env, { AUDIT_QUEUE: { value: sink, enumerable: true } }) as Env;
    servingEnvs.set(env, swapped);
  }
  return swapped;
}

export default {
  fetch(request, env, ctx) {
    const collected = serveCollectGarbage(request);
    if (collected !== undefined) return collected;
    const worst = serveWorstInputs(request);
    if (worst !== undefined) return worst;
    const runtimeCost = serveRuntimeCosts(request);
    if (runtimeCost !== undefined) return runtimeCost;
    const scheduleBench = serveScheduleBench(request, env, fullApp, ctx);
    if (scheduleBench !== undefined) return scheduleBench;
    const pipeline = request.headers.get(PIPELINE_HEADER);
    if (pipeline === FULL_SERVING_PIPELINE) return fullApp.fetch(request, servingEnv(env), ctx);
    if (pipeline === FULL_NO_TELEMETRY_PIPELINE) return fullNoTelemetryApp.fetch(request, servingEnv(env), ctx);
    const app =
      pipeline === CORE_PIPELINE
        ? coreApp
        : pipeline === GATEWAY_PIPELINE
          ? gatewayApp
          : pipeline === FULL_NO_AUDIT_PIPELINE
            ? fullNoAuditApp
            : pipeline === FULL_BUILD_AUDIT_PIPELINE
              ? fullBuildAuditApp
              : pipeline === FULL_NO_LIMITS_PIPELINE
                ? fullNoLimitsApp
                : fullApp;
    return app.fetch(request, env, ctx);
  },
  queue: (batch, env) => handleAuditQueue(batch, env),
} satisfies ExportedHandler<Env>;
