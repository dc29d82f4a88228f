/** Service metadata: the root document and the health check (`/docs` is docs/docs-page.ts). */
import { Hono } from "hono";
import type { AppEnv } from "../types.ts";

export const metaRoutes = new Hono<AppEnv>()
  .get("/", (c) =>
    c.json({
      name: "toolgate",
      description: "A tool gateway for AI agents: one registry, one dispatch pipeline, every provider's shapes.",
      // The routes themselves are listed once, in the OpenAPI document.
      openapi: "/openapi.json",
      docs: "/docs",
      auth: "Every /v1 route needs Authorization: Bearer <key>.",
    }),
  )
  .get("/health", (c) => c.json({ status: "ok" }));
