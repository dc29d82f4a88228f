/**
 * The Worker entry. Importing tools.gen.ts registers every tool, and plugins.gen.ts
 * every plugin's pipeline hooks (discovery happened at build time, because a Worker's imports
 * must be static); apis.gen.ts holds the build-time OpenAPI sources, registered below.
 */
// First: the tools registered by the imports below derive their JSON Schemas at first use.
import "./registry/defer-tool-schemas.ts";
import { env } from "cloudflare:workers";
import { runGatewayWith } from "./agent/run-gateway.ts";
import { RunObject } from "./agent/run-object.ts";
import { deleteExpiredRuns } from "./agent/run-retention.ts";
import { deleteSettledApprovals } from "./approvals/retention.ts";
import { runApprovedWith } from "./approvals/run-approved.ts";
import { SessionObject } from "./approvals/session.ts";
import { auditShards } from "./audit/audit-shards.ts";
import { foldOldRollups } from "./audit/fold-rollups.ts";
import { archiveOrExpireAudit } from "./audit/retention.ts";
import { createParts } from "./compose.ts";
import { loadConfig } from "./config/config.ts";
import "./registry/tools.gen.ts";
import { tagConsoleWithRequestId } from "./tracing/tag-console.ts";
import { deleteExpiredDeliveries } from "./webhooks/retention.ts";
import { isWebhookQueue } from "./webhooks/webhook-message.ts";
import "./webhooks/webhooks.gen.ts";
import "./plugins/plugins.gen.ts";
import { API_SOURCES } from "./openapi-sources/apis.gen.ts";
import { registerBuildTimeSources } from "./openapi-sources/build-time-sources.ts";
import { registry } from "./registry/registry.ts";

// Registrations from here on (remote tools, run-time sources) are checked as they are made.
registry.deferSchemas(false);

// Fail at startup, naming the key, rather than serve with a misread limit: wrangler dev and
// wrangler deploy both load the module and report this error.
loadConfig(env);
// Likewise a listed audit shard that is not a D1 binding (AUDIT_SHARDS).
auditShards(env);

// The apis/ folder's operations, one toolset per source (registration refusals are logged).
registerBuildTimeSources(registry, API_SOURCES);

// Log lines written for a request name its x-request-id.
tagConsoleWithRequestId(console);

// The composition root: the isolate's parts, built once and handed to everything that runs calls.
const parts = createParts();

/**
 * The HTTP app, built by the isolate's first request rather than at start-up: its modules (the
 * routes, their zod schemas and OpenAPI entries, OpenAPIHono) are a large share of what a cold
 * isolate evaluates (issue 33), and an isolate started for a queue batch, a cron or a Durable
 * Object never needs them. After that first request, `fetch` is the app's own.
 */
let serve: ExportedHandlerFetchHandler<Env> | undefined;
async function firstFetch(...[request, env, ctx]: Parameters<ExportedHandlerFetchHandler<Env>>): Promise<Response> {
  const { createApp } = await import("./http/app.ts");
  // Requests that arrived while the import ran share the app the first of them built.
  serve ??= createApp(parts).fetch;
  return serve(request, env, ctx);
}

export { RateLimiter } from "./rate-limit/rate-limiter.ts";
/** The session's Durable Object, handed the way to run an approved call through the pipeline. */
export class Session extends SessionObject {
  protected override readonly runApproved = runApprovedWith(parts.pipeline);
}
export { McpReplies } from "./mcp/replies/mcp-replies.ts";
/** An agent run's Durable Object, handed the gateway its steps run calls through (src/agent/). */
export class Run extends RunObject {
  protected override readonly gateway = runGatewayWith(parts);
}
export { MemoryStore } from "./memory/memory-store.ts";
/** A schedule's Durable Object: its alarm is the next firing, each firing a run (src/schedules/). */
export { ScheduleObject as Schedule } from "./schedules/schedule-object.ts";

export default {
  fetch: (request, env, ctx) => (serve === undefined ? firstFetch(request, env, ctx) : serve(request, env, ctx)),
  // Both audit queues (the main one and its dead-letter queue) are written by the same consumer.
  // The webhook queues (toolgate-hooks and its dead-letter queue) run deliveries' calls. Each
  // consumer is imported by its first batch: an isolate serving requests never needs them.
  async queue(batch, env, ctx) {
    if (isWebhookQueue(batch.queue)) {
      const { handleWebhookQueue } = await import("./webhooks/handle-webhook-queue.ts");
      return handleWebhookQueue(batch, env, ctx, parts);
    }
    const { handleAuditQueue } = await import("./audit/handle-audit-queue.ts");
    return handleAuditQueue(batch, env);
  },
  scheduled: (controller, env, ctx) => {
    // AUDIT_ARCHIVE is optional: unbound, the audit log is only deleted after retention, as before.
    const archive = (env as Partial<Pick<Env, "AUDIT_ARCHIVE">>).AUDIT_ARCHIVE;
    ctx.waitUntil(archiveOrExpireAudit(auditShards(env), archive, loadConfig(env), controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(deleteExpiredDeliveries(env.DB, loadConfig(env).webhookDeliveryRetentionDays, controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(deleteSettledApprovals(env.DB, loadConfig(env).approval.retentionDays, controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(deleteExpiredRuns(env.DB, loadConfig(env).runRetentionDays, controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(foldOldRollups(auditShards(env), controller.scheduledTime).then(() => undefined));
  },
} satisfies ExportedHandler<Env>;
