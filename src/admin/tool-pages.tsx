/** @jsxImportSource hono/jsx */
/**
 * The console's tool routes: the list with its availability and a day's figures, a re-check, a
 * tool's shapes, and accepting a remote tool's changed definition (its MCP server's pin), each
 * read or change the /v1 route's own, run through api-request.ts.
 * Registered by admin-routes.tsx after sign-in, so the session, CSRF and Origin checks apply.
 */
import type { Hono } from "hono";
import { formField } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { serverOfToolset } from "../mcp/federation/remote-tool-name.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { load } from "./loaded.tsx";
import { windowStats } from "./overview-stats.ts";
import { ToolDetailPage, type ToolDetailWire, type ToolHealthWire, ToolsPage } from "./tools-page.tsx";

async function toolsPage(c: AdminContext, done?: string) {
  const now = Date.now();
  const [answer, stats] = await Promise.all([
    apiRequest(c, c.get("principal"), "GET", "/v1/health/tools"),
    load("The audit log (D1)", async () => new Map((await windowStats(c.env, now - 86_400_000, now)).tools.map((t) => [t.tool, t] as const))),
  ]);
  if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), "Tools could not be listed", apiErrorText(answer));
  return renderPage(c, <ToolsPage viewer={c.get("viewer")} tools={(answer.body as { tools: ToolHealthWire[] }).tools} stats={stats} done={done} />);
}

/** Registers the tool routes on the console's app. */
export function toolPages(page: Hono<PageEnv>): void {
  page.get(`${ADMIN_BASE}/tools`, (c) => toolsPage(c));

  page.post(`${ADMIN_BASE}/tools/recheck`, async (c) => {
    const tool = await formField(c, "tool");
    const answer = await apiRequest(c, c.get("principal"), "POST", "/v1/health/tools/recheck", tool === undefined ? {} : { tools: [tool] });
    if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not re-checked", apiErrorText(answer));
    const { checked } = answer.body as { checked: number };
    return toolsPage(c, `Re-checked ${tool ?? "every tool"}: ${checked} check${checked === 1 ? "" : "s"} ran.`);
  });

  page.get(`${ADMIN_BASE}/tools/:name`, async (c) => {
    const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/tools/${encodeURIComponent(c.req.param("name"))}`);
    if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), "No such tool", apiErrorText(answer));
    const done = c.req.query("accepted") === undefined ? undefined : "The new definition is pinned: the tool is no longer flagged or blocked.";
    return renderPage(c, <ToolDetailPage viewer={c.get("viewer")} tool={answer.body as ToolDetailWire} done={done} />);
  });

  page.post(`${ADMIN_BASE}/tools/:name/accept`, async (c) => {
    const name = c.req.param("name");
    const tool = await apiRequest(c, c.get("principal"), "GET", `/v1/tools/${encodeURIComponent(name)}`);
    if (tool.status !== 200) return errorPage(c, shownStatus(tool.status), "No such tool", apiErrorText(tool));
    const server = serverOfToolset((tool.body as ToolDetailWire).toolset);
    if (server === undefined) return errorPage(c, 404, "Not a remote tool", `${name} is not a remote MCP tool, so it has no pin to accept.`);
    const answer = await apiRequest(c, c.get("principal"), "POST", `/v1/mcp-servers/${encodeURIComponent(server)}/tools/${encodeURIComponent(name)}/accept`);
    if (answer.status === 200) return c.redirect(`${ADMIN_BASE}/tools/${encodeURIComponent(name)}?accepted=1`, 303);
    return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not accepted", apiErrorText(answer));
  });
}
