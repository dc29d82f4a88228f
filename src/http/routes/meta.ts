/** Service metadata: the root document and the health check (`/docs` is docs/docs-page.ts). */
import type { Hono } from "hono";
import type { AppEnv } from "../types.ts";

/**
 * Adds the routes to `app` itself: a sub-app of their own, copied in by `app.route`, was a Hono
 * instance and a router more for the cold isolate's first request to build (issue 33).
 */
export function mountMetaRoutes(app: Hono<AppEnv>): void {
  app.get("/", (c) =>
    c.json({
      name: "toolgate",
      description: "A tool gateway for AI agents: one registry, one dispatch pipeline, every provider's shapes.",
      // The routes themselves are listed once, in the OpenAPI document.
      openapi: "/openapi.json",
      docs: "/docs",
      auth: "Every /v1 route needs Authorization: Bearer <key>.",
    }),
  );
  app.get("/health", (c) => c.json({ status: "ok" }));
}
