/** @jsxImportSource hono/jsx */
/**
 * The admin console (`/admin`), server-rendered with hono/jsx on the approvals page's machinery
 * (src/approvals-page/: sign-in, CSRF, headers, layout): plain forms and links, no script.
 * Reads go to the stores or the API's routes; every change goes through the API's own route
 * (api-request.ts), so the console enforces no rule of its own.
 *
 * | Route | Page |
 * |---|---|
 * | GET /admin | overview: figures, charts, top failures, pending approvals, stuck deliveries |
 * | GET /admin/audit, /admin/audit/{id}, /admin/sessions/{id} | the audit log, a call, a session |
 * | GET /admin/keys; POST /admin/keys, /admin/keys/{id}/revoke, /admin/keys/{id}/access | API keys (key-pages.tsx) |
 * | GET /admin/tools, /admin/tools/{name}; POST /admin/tools/recheck, /admin/tools/{name}/accept | tools, availability, shapes, pin accept (tool-pages.tsx) |
 * | GET /admin/webhooks; POST /admin/webhooks/deliveries/{id}/rerun | hooks, deliveries, events (webhook-pages.tsx) |
 * | GET /admin/mcp-servers; POST /admin/mcp-servers, /admin/mcp-servers/{name}/{enable,disable,refresh,sign-in,remove} | remote MCP servers (mcp-server-pages.tsx) |
 * | GET /admin/schedules; POST /admin/schedules/{id}/{pause,resume,delete} | every key's scheduled runs (schedule-pages.tsx) |
 * | GET /admin/connections; POST /admin/connections/{principal}/{server}/revoke | everyone's per-user connections, revoke only (connection-pages.tsx) |
 * | GET /admin/openapi-sources; POST /admin/openapi-sources, /admin/openapi-sources/{name}/{enable,disable,refresh,accept,remove} | OpenAPI sources (openapi-source-pages.tsx) |
 * | POST /admin/sign-in, /admin/sign-out | the sign-in (approvals-page/page-auth.tsx) |
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { listApprovals } from "../approvals/approvals.ts";
import { pageAuth } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { securityHeaders } from "../approvals-page/security-headers.ts";
import type { AuditRecordWire } from "../audit/audit-wire.ts";
import type { GatewayParts } from "../compose.ts";
import { ADMIN_CSS } from "./admin-css.ts";
import { errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { AUDIT_FILTERS, type AuditFilterValues, AuditListPage, CallDetailPage, SessionTimelinePage } from "./audit-page.tsx";
import { connectionPages } from "./connection-pages.tsx";
import { keyPages } from "./key-pages.tsx";
import { load } from "./loaded.tsx";
import { mcpServerPages } from "./mcp-server-pages.tsx";
import { openApiSourcePages } from "./openapi-source-pages.tsx";
import { OverviewPage } from "./overview-page.tsx";
import { isOverviewWindow, overviewStats } from "./overview-stats.ts";
import { schedulePages } from "./schedule-pages.tsx";
import { stuckDeliveries } from "./stuck-deliveries.ts";
import { toolPages } from "./tool-pages.tsx";
import { webhookPages } from "./webhook-pages.tsx";

/** Forms carry a few short fields; a key's toolsets and patterns are the longest. */
const MAX_FORM_BYTES = 16 * 1024;
/** Records per audit page; the session timeline shows up to the API's maximum. */
const AUDIT_PAGE_SIZE = 50;
const TIMELINE_SIZE = 200;
const PENDING_SHOWN = 20;
/**
 * `<epoch ms>-<rid>`, as GET /v1/audit names records. At most 14 digits of time (13 last until
 * 2286), so the `until` of one millisecond later stays within the API's 15-digit epoch.
 */
const RECORD_ID = /^(\d{1,14})-(\d{1,16})$/;

/** The console's routes, for `app.route("/", adminRoutes())`. */
export function adminRoutes(parts: GatewayParts): Hono<PageEnv> {
  const page = new Hono<PageEnv>();
  const { requirePageSignIn, requireSameOrigin, signIn, signInResponse, signOut } = pageAuth(ADMIN_SITE);
  // "/admin/*" matches "/admin" itself too, so each middleware is registered once.
  page.use(`${ADMIN_BASE}/*`, securityHeaders());
  page.post(
    `${ADMIN_BASE}/*`,
    bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => errorPage(c, 413, "Form too large", `A form may send at most ${MAX_FORM_BYTES} bytes.`) }),
  );
  page.post(`${ADMIN_BASE}/*`, requireSameOrigin());
  // A body the runtime cannot parse (a broken multipart) is the sender's mistake, not a store
  // down: answered here, before the sign-in check reads its CSRF field. Hono keeps the parsed
  // body, so the handlers' reads cost nothing more.
  page.post(`${ADMIN_BASE}/*`, async function readableForm(c, next) {
    try {
      await c.req.parseBody();
    } catch {
      return errorPage(c, 400, "The form could not be read", "Its body is not a form this page sends. Reload the page and send it again.");
    }
    return next();
  });

  page.get(`${ADMIN_BASE}/page.css`, (c) => c.body(ADMIN_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=300" }));
  page.post(`${ADMIN_BASE}/sign-in`, signIn);
  page.get(`${ADMIN_BASE}/sign-in`, (c) => signInResponse(c, 200, ADMIN_BASE));

  page.use(`${ADMIN_BASE}/*`, requirePageSignIn());
  // Remote MCP tools join the registry when the catalog opens, as for every /v1 request (app.ts):
  // the API routes the pages call (a key's toolsets, the tools list) look them up. Signed-in only,
  // so a stranger cannot make us call remote servers; free when no sync is due.
  page.use(`${ADMIN_BASE}/*`, async function openCatalog(c, next) {
    await parts.pipeline.catalog.open(c.env);
    return next();
  });
  page.post(`${ADMIN_BASE}/sign-out`, signOut);

  page.get(ADMIN_BASE, async (c) => {
    const asked = c.req.query("window");
    const window = isOverviewWindow(asked) ? asked : "day";
    const now = Date.now();
    const [overview, pending, stuck] = await Promise.all([
      load("The audit log (D1)", () => overviewStats(c.env, window, now)),
      load("The approvals index (D1)", () => listApprovals(c.env, { status: "pending", limit: PENDING_SHOWN })),
      load("The webhook deliveries (D1)", () => stuckDeliveries(c.env.DB, now)),
    ]);
    return renderPage(c, <OverviewPage viewer={c.get("viewer")} window={window} overview={overview} pending={pending} stuck={stuck} />);
  });

  page.get(`${ADMIN_BASE}/audit`, async (c) => {
    const values: AuditFilterValues = {};
    for (const name of AUDIT_FILTERS) {
      const value = c.req.query(name)?.trim();
      if (value !== undefined && value !== "") values[name] = value;
    }
    const query = new URLSearchParams({ ...values, limit: String(AUDIT_PAGE_SIZE) });
    const cursor = c.req.query("cursor");
    if (cursor !== undefined && cursor !== "") query.set("cursor", cursor);
    const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/audit?${query.toString()}`);
    const viewer = c.get("viewer");
    if (answer.status !== 200) {
      return renderPage(
        c,
        <AuditListPage viewer={viewer} values={values} records={[]} nextHref={null} error={apiErrorText(answer)} />,
        shownStatus(answer.status),
      );
    }
    const body = answer.body as { records: AuditRecordWire[]; next_cursor: string | null };
    const nextHref = body.next_cursor === null ? null : `${ADMIN_BASE}/audit?${new URLSearchParams({ ...values, cursor: body.next_cursor }).toString()}`;
    return renderPage(c, <AuditListPage viewer={viewer} values={values} records={body.records} nextHref={nextHref} />);
  });

  page.get(`${ADMIN_BASE}/audit/:id`, async (c) => {
    const id = c.req.param("id");
    const match = RECORD_ID.exec(id);
    if (match === null) return errorPage(c, 404, "No such call", `"${id}" is not an audit record id; ids look like 1777636800000-4503599627370495.`);
    // Records of one millisecond, from the API (so its scope applies), then this one among them.
    const at = Number(match[1]);
    const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/audit?since=${at}&until=${at + 1}&limit=200`);
    if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), "The call could not be read", apiErrorText(answer));
    const record = (answer.body as { records: AuditRecordWire[] }).records.find((r) => r.id === id);
    if (record === undefined)
      return errorPage(c, 404, "No such call", `The audit log has no call ${id} that this key may see. It may have passed the retention period.`);
    return renderPage(c, <CallDetailPage viewer={c.get("viewer")} record={record} />);
  });

  page.get(`${ADMIN_BASE}/sessions/:id`, async (c) => {
    const sessionId = c.req.param("id");
    const query = new URLSearchParams({ session_id: sessionId, limit: String(TIMELINE_SIZE) });
    const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/audit?${query.toString()}`);
    if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), "The session could not be read", apiErrorText(answer));
    const body = answer.body as { records: AuditRecordWire[]; next_cursor: string | null };
    return renderPage(
      c,
      <SessionTimelinePage viewer={c.get("viewer")} sessionId={sessionId} records={[...body.records].reverse()} more={body.next_cursor !== null} />,
    );
  });

  keyPages(page);
  mcpServerPages(page);
  openApiSourcePages(page);
  connectionPages(page);
  webhookPages(page);
  schedulePages(page);
  toolPages(page);

  page.all(`${ADMIN_BASE}/*`, (c) => errorPage(c, 404, "Page not found", `There is no page at ${c.req.path}.`));

  page.onError(function adminError(error, c) {
    console.error("admin console error", error);
    // Everything a page does before rendering is a read of a store (the sign-in in KV, keys in D1,
    // the lists behind it): a throw there is a store that did not answer, a state to retry, so 503.
    return errorPage(
      c,
      503,
      "Temporarily unavailable",
      "This page could not be shown: a store it reads (D1, KV or a Durable Object) did not answer. The failure was logged; try again in a moment.",
    );
  });
  return page;
}
