/**
 * `GET /docs`: the interactive API reference, reading `/openapi.json`. The viewer is our own
 * pinned copy (docs-viewer.ts), never a CDN's: a CDN's script would run on the gateway's origin,
 * and the page was blank wherever the CDN was unreachable.
 *
 * The Content-Security-Policy allows this origin only, for scripts, data and everything else. Its
 * one allowance is inline styles: the viewer sets `style` attributes and adds `<style>` elements
 * of its own (Vue components, toasts) that no nonce or hash can cover, and blocking them broke
 * parts of its layout (seen in chromium). Styles cannot run script, and scripts stay 'self' only:
 * no inline script, no eval, nothing from another origin.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../types.ts";
import { DOCS_VIEWER_INTEGRITY, DOCS_VIEWER_PATH } from "./docs-viewer.ts";

/** The viewer's options: no web fonts from its servers, no telemetry. */
const VIEWER_CONFIGURATION = JSON.stringify({ withDefaultFonts: false, telemetry: false });

export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const DOCS_PAGE = html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>toolgate API reference</title>
  </head>
  <body>
    <noscript>The interactive reference needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <script id="api-reference" data-url="/openapi.json" data-configuration="${VIEWER_CONFIGURATION}"></script>
    <script src="${DOCS_VIEWER_PATH}" integrity="${DOCS_VIEWER_INTEGRITY}"></script>
  </body>
</html>`;

export const docsPageRoutes = new Hono<AppEnv>().get("/docs", function docsPage(c) {
  c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  return c.html(DOCS_PAGE);
});
