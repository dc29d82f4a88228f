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
      // The routes themselves are listed once, in the OpenAPI document.
      openapi: "/openapi.json",
      docs: "/docs",
      auth: "Every /v1 route needs Authorization: Bearer <key>.",
    }),
  )
  .get("/docs", (c) => c.html(DOCS_PAGE))
  .get("/health", (c) => c.json({ status: "ok" }));
