/** @jsxImportSource hono/jsx */
/**
 * The console's OpenAPI source routes: the list and every change, each one the
 * /v1/openapi-sources route's own (admin only, its validation, its SSRF check), run through
 * api-request.ts. Registered by admin-routes.tsx after sign-in, so session, CSRF and Origin apply.
 */
import type { Hono } from "hono";
import { formField } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import type { OpenApiSourceStatus } from "../openapi-sources/openapi-sources-schemas.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { type OpenApiSourceFormValues, OpenApiSourcesPage, type OpenApiSourcesPageProps } from "./openapi-sources-page.tsx";

const LIST = `${ADMIN_BASE}/openapi-sources`;
const apiPath = (name: string) => `/v1/openapi-sources/${encodeURIComponent(name)}`;

/** The console's actions and the API route each posts to, with what its done-notice says. */
const ACTIONS = {
  enable: { method: "POST", path: "enable", done: (name: string) => `${name} enabled: its tools join the registry.` },
  disable: { method: "POST", path: "disable", done: (name: string) => `${name} disabled: its tools leave the registry until it is enabled again.` },
  refresh: { method: "POST", path: "refresh", done: (name: string) => `${name}'s spec fetched again; a changed spec waits below until accepted.` },
  accept: { method: "POST", path: "accept", done: (name: string) => `${name}'s changed spec accepted: its operations are the tools now.` },
  remove: { method: "DELETE", path: undefined, done: (name: string) => `${name} removed, with its tools.` },
} as const;

async function sourcesPage(
  c: AdminContext,
  extra: Omit<OpenApiSourcesPageProps, "viewer" | "sources"> = {},
  status: 200 | 201 | ReturnType<typeof shownStatus> = 200,
) {
  const answer = await apiRequest(c, c.get("principal"), "GET", "/v1/openapi-sources");
  if (answer.status !== 200)
    return errorPage(
      c,
      shownStatus(answer.status),
      answer.status === 403 ? "OpenAPI sources are for admins" : "OpenAPI sources could not be listed",
      apiErrorText(answer),
    );
  const { sources } = answer.body as { sources: OpenApiSourceStatus[] };
  return renderPage(c, <OpenApiSourcesPage viewer={c.get("viewer")} sources={sources} {...extra} />, status);
}

/** The API body the add form stands for: blank fields are left out, so the API's defaults apply. */
function createBody(values: OpenApiSourceFormValues): Record<string, unknown> {
  return {
    name: values.name ?? "",
    spec: { url: values.spec_url ?? "" },
    ...(values.base_url === undefined || values.base_url.trim() === "" ? {} : { base_url: values.base_url.trim() }),
    ...(values.bearer_secret === undefined || values.bearer_secret.trim() === ""
      ? {}
      : { auth: { type: "bearer", token: { secret: values.bearer_secret.trim() } } }),
  };
}

export function openApiSourcePages(page: Hono<PageEnv>): void {
  page.get(LIST, (c) => {
    for (const [what, action] of Object.entries(ACTIONS)) {
      const name = c.req.query(what);
      if (name !== undefined) return sourcesPage(c, { done: action.done(name) });
    }
    return sourcesPage(c);
  });

  page.post(LIST, async (c) => {
    const values: OpenApiSourceFormValues = {};
    for (const name of ["name", "spec_url", "base_url", "bearer_secret"] as const) {
      const value = await formField(c, name);
      if (value !== undefined) values[name] = value;
    }
    const answer = await apiRequest(c, c.get("principal"), "POST", "/v1/openapi-sources", createBody(values));
    if (answer.status === 201) {
      const added = answer.body as OpenApiSourceStatus;
      return sourcesPage(c, { done: `${added.name} added with ${added.tools.length} tool${added.tools.length === 1 ? "" : "s"}.` }, 201);
    }
    if (answer.status === 403) return errorPage(c, 403, "Not allowed", apiErrorText(answer));
    return sourcesPage(c, { values, error: apiErrorText(answer) }, shownStatus(answer.status));
  });

  for (const [what, action] of Object.entries(ACTIONS)) {
    page.post(`${LIST}/:name/${what}`, async (c) => {
      const name = c.req.param("name");
      const path = action.path === undefined ? apiPath(name) : `${apiPath(name)}/${action.path}`;
      const answer = await apiRequest(c, c.get("principal"), action.method, path);
      if (answer.status === 200 || answer.status === 204) return c.redirect(`${LIST}?${new URLSearchParams({ [what]: name }).toString()}`, 303);
      return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not changed", apiErrorText(answer));
    });
  }
}
