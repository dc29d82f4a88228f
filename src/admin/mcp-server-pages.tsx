/** @jsxImportSource hono/jsx */
/**
 * The console's MCP server routes: the list and every change, each one the /v1/mcp-servers
 * route's own (admin only, its validation, its outbound-URL check), run through api-request.ts.
 * Registered by admin-routes.tsx after sign-in, so the session, CSRF and Origin checks apply.
 */
import type { Hono } from "hono";
import { formField } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { createServerBody, enabledBody } from "./mcp-server-form.ts";
import { type McpServerFormValues, McpServersPage, type McpServersPageProps, type McpServerWire } from "./mcp-servers-page.tsx";

const LIST = `${ADMIN_BASE}/mcp-servers`;
const apiPath = (name: string) => `/v1/mcp-servers/${encodeURIComponent(name)}`;

/** What each done-notice in the list's query string says. */
const DONE: Record<string, (name: string) => string> = {
  enabled: (name) => `${name} enabled: its tools join the registry.`,
  disabled: (name) => `${name} disabled: its tools leave the registry until it is enabled again.`,
  refreshed: (name) => `${name}'s tool list fetched again.`,
  removed: (name) => `${name} removed, with its pins and sign-in.`,
};

async function serversPage(
  c: AdminContext,
  extra: Omit<McpServersPageProps, "viewer" | "servers"> = {},
  status: 200 | 201 | ReturnType<typeof shownStatus> = 200,
) {
  const answer = await apiRequest(c, c.get("principal"), "GET", "/v1/mcp-servers");
  if (answer.status !== 200)
    return errorPage(
      c,
      shownStatus(answer.status),
      answer.status === 403 ? "MCP servers are for admins" : "MCP servers could not be listed",
      apiErrorText(answer),
    );
  const { servers } = answer.body as { servers: McpServerWire[] };
  return renderPage(c, <McpServersPage viewer={c.get("viewer")} servers={servers} {...extra} />, status);
}

/** A change's refusal: a page naming the API's reason. */
const refused = (c: AdminContext, answer: { status: number; body: unknown }, title: string) =>
  errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : title, apiErrorText(answer));

const done = (c: AdminContext, what: keyof typeof DONE, name: string) => c.redirect(`${LIST}?${new URLSearchParams({ [what]: name }).toString()}`, 303);

export function mcpServerPages(page: Hono<PageEnv>): void {
  page.get(LIST, (c) => {
    for (const [what, text] of Object.entries(DONE)) {
      const name = c.req.query(what);
      if (name !== undefined) return serversPage(c, { done: text(name) });
    }
    return serversPage(c);
  });

  page.post(LIST, async (c) => {
    const values: McpServerFormValues = {};
    for (const name of ["name", "url", "headers", "pin"] as const) {
      const value = await formField(c, name);
      if (value !== undefined) values[name] = value;
    }
    const answer = await apiRequest(c, c.get("principal"), "POST", "/v1/mcp-servers", createServerBody(values));
    if (answer.status === 201) {
      const added = answer.body as McpServerWire;
      const signIn = added.auth.sign_in_url === null ? undefined : { server: added.name, url: added.auth.sign_in_url };
      return serversPage(c, { done: `${added.name} added with ${added.tools.length} tool${added.tools.length === 1 ? "" : "s"}.`, signIn }, 201);
    }
    if (answer.status === 403) return refused(c, answer, "Not added");
    return serversPage(c, { values, error: apiErrorText(answer) }, shownStatus(answer.status));
  });

  for (const enabled of [true, false]) {
    page.post(`${LIST}/:name/${enabled ? "enable" : "disable"}`, async (c) => {
      const name = c.req.param("name");
      const current = await apiRequest(c, c.get("principal"), "GET", apiPath(name));
      if (current.status !== 200) return refused(c, current, "No such server");
      const answer = await apiRequest(c, c.get("principal"), "PUT", apiPath(name), enabledBody(current.body as McpServerWire, enabled));
      return answer.status === 200 ? done(c, enabled ? "enabled" : "disabled", name) : refused(c, answer, "Not changed");
    });
  }

  page.post(`${LIST}/:name/refresh`, async (c) => {
    const name = c.req.param("name");
    const answer = await apiRequest(c, c.get("principal"), "POST", `${apiPath(name)}/refresh`);
    return answer.status === 200 ? done(c, "refreshed", name) : refused(c, answer, "Not refreshed");
  });

  page.post(`${LIST}/:name/remove`, async (c) => {
    const name = c.req.param("name");
    const answer = await apiRequest(c, c.get("principal"), "DELETE", apiPath(name));
    return answer.status === 204 ? done(c, "removed", name) : refused(c, answer, "Not removed");
  });

  page.post(`${LIST}/:name/sign-in`, async (c) => {
    const name = c.req.param("name");
    const answer = await apiRequest(c, c.get("principal"), "POST", `${apiPath(name)}/sign-in`);
    if (answer.status !== 201) return refused(c, answer, "Sign-in not started");
    const { sign_in_url: url } = answer.body as { sign_in_url: string };
    return serversPage(c, { signIn: { server: name, url } });
  });
}
