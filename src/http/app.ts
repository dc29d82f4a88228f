/**
 * The HTTP edge: routes, request limits, and the rule that no answer is ever an HTML error
 * page or a stack trace. Every request-level failure goes through request-failure.ts.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { adminRoutes } from "../admin/admin-routes.tsx";
import { chatCompletionsRoutes } from "../agent/chat-completions-routes.ts";
import { runsRoutes } from "../agent/runs-routes.ts";
import { approvalsRoutes } from "../approvals/approvals-routes.ts";
import { approvalsPageRoutes } from "../approvals-page/approvals-page-routes.tsx";
import { auditRoutes } from "../audit/audit-routes.ts";
import { authenticate } from "../auth/authenticate.ts";
import { keysRoutes } from "../auth/keys-routes.ts";
import { requireRole } from "../auth/require-role.ts";
import { chatPageRoutes } from "../chat-page/chat-page-routes.tsx";
import type { GatewayParts } from "../compose.ts";
import { ConfigError, loadConfig } from "../config/config.ts";
import { jwksRoutes } from "../identity/jwks-routes.ts";
import { connectionsRoutes } from "../mcp/federation/connections/connections-routes.ts";
import { mcpServersRoutes } from "../mcp/federation/mcp-servers-routes.ts";
import { signInRoutes } from "../mcp/federation/sign-in-routes.ts";
import { mcpRoutes } from "../mcp/http/mcp-routes.ts";
import { memoryRoutes } from "../memory/memory-routes.ts";
import { metricsRoutes } from "../metrics/metrics-routes.ts";
import { oauthRoutes } from "../oauth/oauth-routes.ts";
import { openApiSourcesRoutes } from "../openapi-sources/openapi-sources-routes.ts";
import { schedulesRoutes } from "../schedules/schedules-routes.ts";
import { requestId } from "../tracing/request-id-middleware.ts";
import { requestLog } from "../tracing/request-log.ts";
import { isWebhookDelivery } from "../webhooks/accept-delivery.ts";
import { webhooksRoutes } from "../webhooks/webhooks-routes.ts";
import { refuseOversizedBody } from "./body-limit.ts";
import { docsPageRoutes } from "./docs/docs-page.ts";
import { openApiDocument } from "./openapi/openapi-document.ts";
import { failureResponse, validationHook } from "./request-failure.ts";
import { callToolRoutes } from "./routes/call-tool.ts";
import { healthRoutes } from "./routes/health.ts";
import { metaRoutes } from "./routes/meta.ts";
import { toolCallsRoutes } from "./routes/tool-calls.ts";
import { toolsRoutes } from "./routes/tools.ts";
import { toolsetsRoutes } from "./routes/toolsets.ts";
import type { AppEnv } from "./types.ts";

export interface AppOptions {
  /**
   * Replaces the way a request is authenticated. Only the benchmark does, to measure what each
   * layer costs; the Worker entry always builds the app with the real one.
   */
  authenticate?: MiddlewareHandler<AppEnv>;
}

/** Builds the application on the isolate's parts; the Worker entry and the benchmark Worker both mount it. */
export function createApp(parts: GatewayParts, options: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: validationHook,
  });

  // First, so every answer (failures, 404s, /mcp, the approvals page) carries x-request-id and
  // every log line the request writes names it.
  app.use("*", requestId(), requestLog());

  // The /v1 door, in this order: the body limit (body-limit.ts), the bearer key, then the
  // catalog. Every /v1 route needs a key; /, /health, /openapi.json and /docs stay public. The
  // one exception is exactly `POST /v1/hooks/{name}`: webhook senders cannot send our key, so a
  // delivery is authenticated by the webhook's signature instead and counts its own bytes
  // (src/webhooks/accept-delivery.ts). Remote MCP tools join the registry at run time: the
  // catalog is opened only for an authenticated request, so a stranger cannot make us call
  // remote servers, and routes that run calls hand the opened catalog to their request scope
  // (opening it again was a second federation check per call). One middleware, not three: each
  // Hono layer is a dispatch frame and a promise on every call, and the core pipeline's profile
  // showed them. /mcp and the webhook consumer, which authenticate on their own, open the
  // catalog there.
  const bearer = options.authenticate ?? authenticate();
  const catalog = parts.pipeline.catalog;
  app.use("/v1/*", async function v1Door(c, next) {
    if (isWebhookDelivery(c.req.method, c.req.path)) return next();
    const limited = refuseOversizedBody(c);
    const tooLarge = limited instanceof Promise ? await limited : limited;
    if (tooLarge !== undefined) return tooLarge;
    return bearer(c, async function openCatalog() {
      c.set("catalog", await catalog.open(c.env));
      await next();
    });
  });
  // Changing what exists (toolsets, keys, re-checks, the whole audit log) is for admins.
  app.on(["POST", "DELETE"], "/v1/toolsets/*", requireRole("admin"));
  app.post("/v1/toolsets", requireRole("admin"));

  app.route("/", metaRoutes);
  app.route("/", keysRoutes);
  app.route("/", healthRoutes);
  app.route("/", metricsRoutes);
  app.route("/", auditRoutes);
  app.route("/", toolsRoutes);
  app.route("/", toolsetsRoutes);
  app.route("/", toolCallsRoutes(parts));
  app.route("/", callToolRoutes(parts));
  app.route("/", approvalsRoutes);
  app.route("/", memoryRoutes);
  app.route("/", runsRoutes);
  app.route("/", schedulesRoutes);
  app.route("/", chatCompletionsRoutes);
  // The approvals web page: HTML, its own session cookie and error pages (not part of /v1).
  app.route("/", approvalsPageRoutes());
  // The admin console: the same machinery, every change through the API's own routes.
  app.route("/", adminRoutes(parts));
  // The chat page: talks to the agent through the runs API as the signed-in key.
  app.route("/", chatPageRoutes());
  app.route("/", webhooksRoutes);
  app.route("/", mcpRoutes(parts, options.authenticate === undefined ? {} : { authenticate: options.authenticate }));
  app.route("/", mcpServersRoutes);
  app.route("/", openApiSourcesRoutes);
  app.route("/", signInRoutes);
  app.route("/", jwksRoutes);
  app.route("/", connectionsRoutes);
  // OAuth 2.1 sign-in for /mcp: discovery, registration, tokens and the consent page (not /v1).
  app.route("/", oauthRoutes());

  // The OpenAPI document, per key when one is sent (src/http/openapi/openapi-document.ts).
  app.get("/openapi.json", openApiDocument(app, parts, bearer));
  app.route("/", docsPageRoutes);

  app.notFound((c) => failureResponse(c, { kind: "not_found", method: c.req.method, path: c.req.path }));

  app.onError(function handleError(error, c) {
    if (error instanceof ConfigError) return failureResponse(c, { kind: "misconfigured", message: error.message });
    if (error instanceof HTTPException) {
      if (error.status === 415) return failureResponse(c, { kind: "unsupported_media_type", received: c.req.header("content-type") });
      if (error.status === 413) return failureResponse(c, { kind: "payload_too_large", limitBytes: loadConfig(c.env).maxBodyBytes });
      if (error.status === 400) return failureResponse(c, { kind: "malformed_body", detail: error.message });
    }
    console.error("unhandled error", error);
    return failureResponse(c, { kind: "internal" });
  });

  return app;
}
