/** Service metadata: the root document and the interactive API reference page. */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../types.ts";

/** The reference page loads Scalar's viewer from its CDN and points it at our OpenAPI 3.1 document. */
const DOCS_PAGE = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>toolgate API reference</title>
  </head>
  <body>
    <noscript>The interactive reference needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
  </body>
</html>`;

export const metaRoutes = new Hono<AppEnv>()
  .get("/", (c) =>
    c.json({
      name: "toolgate",
      description: "A tool gateway for AI agents: one registry, one dispatch pipeline, every provider's shapes.",
      openapi: "/openapi.json",
      docs: "/docs",
      auth: "Every /v1 route needs Authorization: Bearer <key>.",
      endpoints: [
        "GET /v1/tools",
        "GET /v1/tools/{name}",
        "GET /v1/toolsets",
        "GET /v1/toolsets/{name}",
        "POST /v1/toolsets",
        "DELETE /v1/toolsets/{name}",
        "POST /v1/tool-calls",
        "GET /v1/health/tools",
        "POST /v1/health/tools/recheck",
        "GET|POST /v1/keys",
        "GET|DELETE /v1/keys/{id}",
        "GET /v1/audit",
        "GET /v1/audit/stats",
      ],
    }),
  )
  .get("/docs", (c) => c.html(DOCS_PAGE))
  .get("/health", (c) => c.json({ status: "ok" }));
