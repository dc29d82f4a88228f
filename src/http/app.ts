/**
 * The HTTP edge: routes, request limits, and the rule that no answer is ever an HTML error
 * page or a stack trace. Every request-level failure goes through request-failure.ts.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { MiddlewareHandler } from "hono";
import { ConfigError, loadConfig } from "../config/config.ts";
import { failureResponse, validationHook } from "./request-failure.ts";
import { auditRoutes } from "../audit/audit-routes.ts";
import { authenticate } from "../auth/authenticate.ts";
import { keysRoutes } from "../auth/keys-routes.ts";
import { requireRole } from "../auth/require-role.ts";
import { healthRoutes } from "./routes/health.ts";
import { metaRoutes } from "./routes/meta.ts";
import { toolCallsRoutes, type BatchStages } from "./routes/tool-calls.ts";
import { toolsRoutes } from "./routes/tools.ts";
import { toolsetsRoutes } from "./routes/toolsets.ts";
import type { AppEnv } from "./types.ts";
import { mcpRoutes } from "../mcp/http/mcp-routes.ts";

export interface AppOptions {
  /**
   * Replaces stages of POST /v1/tool-calls (batch runner, rate limits, audit) and the way a
   * request is authenticated. Only the benchmark does, to measure what each layer costs; the
   * Worker entry always builds the app with the real ones.
   */
  stages?: Partial<BatchStages>;
  authenticate?: MiddlewareHandler<AppEnv>;
}

/** Builds the application; the Worker entry and the benchmark Worker both mount it. */
export function createApp(options: AppOptions = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: validationHook,
  });

  // One bodyLimit middleware per configured size, built once rather than per request.
  const limiters = new Map<number, MiddlewareHandler<AppEnv>>();
  app.use("/v1/*", async function limitBody(c, next) {
    const { maxBodyBytes } = loadConfig(c.env);
    let limiter = limiters.get(maxBodyBytes);
    if (limiter === undefined) {
      limiter = bodyLimit({ maxSize: maxBodyBytes, onError: (ctx) => failureResponse(ctx, { kind: "payload_too_large", limitBytes: maxBodyBytes }) });
      limiters.set(maxBodyBytes, limiter);
    }
    return limiter(c, next);
  });

  // Every /v1 route needs a key; /, /health, /openapi.json and /docs stay public.
  app.use("/v1/*", options.authenticate ?? authenticate());
  // Changing what exists (toolsets, keys, re-checks, the whole audit log) is for admins.
  app.on(["POST", "DELETE"], "/v1/toolsets/*", requireRole("admin"));
  app.post("/v1/toolsets", requireRole("admin"));
  app.post("/v1/health/tools/recheck", requireRole("admin"));

  app.route("/", metaRoutes);
  app.route("/", keysRoutes);
  app.route("/", healthRoutes);
  app.route("/", auditRoutes);
  app.route("/", toolsRoutes);
  app.route("/", toolsetsRoutes);
  app.route("/", toolCallsRoutes(options.stages));
  app.route("/", mcpRoutes({ ...(options.stages === undefined ? {} : { stages: options.stages }), ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }) }));

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "toolgate",
      version: "0.1.0",
      description: "A tool gateway for AI agents on Cloudflare Workers. Tool definitions in OpenAI, Anthropic and MCP shapes; batches of tool calls run through one pipeline.",
    },
  });

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
