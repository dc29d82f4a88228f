/**
 * The HTTP edge: routes, request limits, and the rule that no answer is ever an HTML error
 * page or a stack trace. Every request-level failure goes through request-failure.ts.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { Context, MiddlewareHandler } from "hono";
import { ConfigError, loadConfig } from "../config/config.ts";
import { failureResponse, validationHook } from "./request-failure.ts";
import { framedLength } from "./read-raw-body.ts";
import { auditRoutes } from "../audit/audit-routes.ts";
import { authenticate } from "../auth/authenticate.ts";
import { keysRoutes } from "../auth/keys-routes.ts";
import { requireRole } from "../auth/require-role.ts";
import { healthRoutes } from "./routes/health.ts";
import { metaRoutes } from "./routes/meta.ts";
import { toolCallsRoutes } from "./routes/tool-calls.ts";
import { callToolRoutes } from "./routes/call-tool.ts";
import { openApiDocument } from "./openapi/openapi-document.ts";
import { docsPageRoutes } from "./docs/docs-page.ts";
import type { GatewayParts } from "../compose.ts";
import { toolsRoutes } from "./routes/tools.ts";
import { toolsetsRoutes } from "./routes/toolsets.ts";
import { approvalsRoutes } from "../approvals/approvals-routes.ts";
import type { AppEnv } from "./types.ts";
import { approvalsPageRoutes } from "../approvals-page/approvals-page-routes.tsx";
import { adminRoutes } from "../admin/admin-routes.tsx";
import { chatPageRoutes } from "../chat-page/chat-page-routes.tsx";
import { isWebhookDelivery } from "../webhooks/accept-delivery.ts";
import { webhooksRoutes } from "../webhooks/webhooks-routes.ts";
import { mcpRoutes } from "../mcp/http/mcp-routes.ts";
import { mcpServersRoutes } from "../mcp/federation/mcp-servers-routes.ts";
import { signInRoutes } from "../mcp/federation/sign-in-routes.ts";
import { memoryRoutes } from "../memory/memory-routes.ts";
import { oauthRoutes } from "../oauth/oauth-routes.ts";
import { runsRoutes } from "../agent/runs-routes.ts";
import { chatCompletionsRoutes } from "../agent/chat-completions-routes.ts";
import { requestId } from "../tracing/request-id-middleware.ts";

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
  app.use("*", requestId());

  // One bodyLimit middleware per configured size, built once rather than per request.
  const limiters = new Map<number, MiddlewareHandler<AppEnv>>();
  app.use("/v1/*", async function limitBody(c, next) {
    // A webhook delivery counts its own bytes, so an oversized one is recorded as well as refused.
    if (isWebhookDelivery(c.req.method, c.req.path)) return next();
    const { maxBodyBytes } = loadConfig(c.env);
    const tooLarge = (ctx: Context<AppEnv>) => failureResponse(ctx, { kind: "payload_too_large", limitBytes: maxBodyBytes });
    // A framed body is judged by its header alone, as Hono's bodyLimit does too, but without
    // first reading `Request.body`: making that stream showed in every call's profile, and the
    // route reads the body without it. Only a body counted as it arrives needs Hono's.
    const declared = framedLength(c.req.raw);
    if (declared !== undefined) return declared > maxBodyBytes ? tooLarge(c) : next();
    let limiter = limiters.get(maxBodyBytes);
    if (limiter === undefined) {
      limiter = bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge });
      limiters.set(maxBodyBytes, limiter);
    }
    return limiter(c, next);
  });

  // Every /v1 route needs a key; /, /health, /openapi.json and /docs stay public. The one
  // exception is exactly `POST /v1/hooks/{name}`: webhook senders cannot send our key, so a
  // delivery is authenticated by the webhook's signature instead (src/webhooks/accept-delivery.ts).
  const bearer = options.authenticate ?? authenticate();
  app.use("/v1/*", (c, next) => (isWebhookDelivery(c.req.method, c.req.path) ? next() : bearer(c, next)));
  // Changing what exists (toolsets, keys, re-checks, the whole audit log) is for admins.
  app.on(["POST", "DELETE"], "/v1/toolsets/*", requireRole("admin"));
  app.post("/v1/toolsets", requireRole("admin"));
  // Remote MCP tools join the registry at run time: the catalog is opened before any /v1 route
  // lists tools, and only for an authenticated request, so a stranger cannot make us call remote
  // servers. Routes that run calls hand the opened catalog to their request scope, which would
  // otherwise open it again (a second federation check per call, ~1% of the core pipeline's
  // samples); /mcp and the webhook consumer, which authenticate on their own, open it there.
  const catalog = parts.pipeline.catalog;
  app.use("/v1/*", async function openCatalog(c, next) {
    if (!isWebhookDelivery(c.req.method, c.req.path)) c.set("catalog", await catalog.open(c.env));
    return next();
  });

  app.route("/", metaRoutes);
  app.route("/", keysRoutes);
  app.route("/", healthRoutes);
  app.route("/", auditRoutes);
  app.route("/", toolsRoutes);
  app.route("/", toolsetsRoutes);
  app.route("/", toolCallsRoutes(parts));
  app.route("/", callToolRoutes(parts));
  app.route("/", approvalsRoutes);
  app.route("/", memoryRoutes);
  app.route("/", runsRoutes);
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
  app.route("/", signInRoutes);
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
