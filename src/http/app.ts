/**
 * The HTTP edge: routes, request limits, and the rule that no answer is ever an HTML error
 * page or a stack trace. Every request-level failure goes through request-failure.ts.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { authenticate } from "../auth/authenticate.ts";
import { requireRole } from "../auth/require-role.ts";
import type { GatewayParts } from "../compose.ts";
import { ConfigError, loadConfig } from "../config/config.ts";
import { requestLog } from "../tracing/request-log.ts";
import { isWebhookDelivery } from "../webhooks/accept-delivery.ts";
import { refuseOversizedBody } from "./body-limit.ts";
import { groupParent, lazyRouteGroups, mountAllGroups } from "./lazy-route-groups.ts";
import { openApiDocument } from "./openapi/openapi-document.ts";
import { failureResponse, validationHook } from "./request-failure.ts";
import { type GroupContext, ROUTE_GROUPS } from "./route-groups.ts";
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
  app.use("*", requestLog());

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

  // The route groups (route-groups.ts): the eager ones' routes first, then one middleware that
  // imports a lazy group at its first request. Routes of different groups do not overlap, so
  // the order only matters to the OpenAPI document, which lists every group in the table's order.
  const context: GroupContext = { parts, options: options.authenticate === undefined ? {} : { authenticate: options.authenticate } };
  for (const group of ROUTE_GROUPS) if ("mount" in group) group.mount(app, context);
  app.use("*", lazyRouteGroups(ROUTE_GROUPS, context));

  // The OpenAPI document, per key when one is sent (src/http/openapi/openapi-document.ts).
  app.get(
    "/openapi.json",
    openApiDocument(
      async function documentedApp() {
        const documented = groupParent();
        await mountAllGroups(documented, ROUTE_GROUPS, { ...context, documenting: true });
        return documented;
      },
      parts,
      bearer,
    ),
  );

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
