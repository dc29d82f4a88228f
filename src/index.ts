/**
 * The Worker entry. Importing tools.gen.ts registers every tool (discovery happened at build
 * time, because a Worker's imports must be static).
 */
import { env } from "cloudflare:workers";
import { handleAuditQueue } from "./audit/handle-audit-queue.ts";
import { deleteExpiredAudit } from "./audit/retention.ts";
import { loadConfig } from "./config/config.ts";
import { createApp } from "./http/app.ts";
import "./registry/tools.gen.ts";

// Fail at startup, naming the key, rather than serve with a misread limit: wrangler dev and
// wrangler deploy both load the module and report this error.
loadConfig(env);

const app = createApp();

export { RateLimiter } from "./rate-limit/rate-limiter.ts";
export { McpReplies } from "./mcp/replies/mcp-replies.ts";

export default {
  fetch: app.fetch,
  // Both audit queues (the main one and its dead-letter queue) are written by the same consumer.
  queue: (batch, env) => handleAuditQueue(batch, env),
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(deleteExpiredAudit(env.DB, loadConfig(env).auditRetentionDays, controller.scheduledTime).then(() => undefined));
  },
} satisfies ExportedHandler<Env>;
