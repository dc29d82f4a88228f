/** @jsxImportSource hono/jsx */
/**
 * The console's API key routes: the list, a new key, a key's access and its revocation, each
 * change the /v1/keys route's own (admin only, its validation), run through api-request.ts.
 * Registered by admin-routes.tsx after sign-in, so the session, CSRF and Origin checks apply.
 */
import type { Hono } from "hono";
import { formField } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { createKeyBody, keyAccessBody } from "./key-form.ts";
import { type CreatedKeyWire, type KeyFormValues, KeysPage, type KeyWire } from "./keys-page.tsx";

async function keyFormValues(c: AdminContext): Promise<KeyFormValues> {
  const values: KeyFormValues = {};
  for (const name of ["name", "role", "toolsets", "policy_mode", "patterns", "rate_limit"] as const) {
    const value = await formField(c, name);
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/** The keys page, with whatever the last action left to say. */
async function keysPage(
  c: AdminContext,
  extra: { values?: KeyFormValues; error?: string; created?: CreatedKeyWire; done?: string } = {},
  status: 200 | 201 | ReturnType<typeof shownStatus> = 200,
) {
  const answer = await apiRequest(c, c.get("principal"), "GET", "/v1/keys");
  if (answer.status !== 200)
    return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Keys are for admins" : "Keys could not be listed", apiErrorText(answer));
  const { keys } = answer.body as { keys: KeyWire[] };
  return renderPage(c, <KeysPage viewer={c.get("viewer")} keys={keys} {...extra} />, status);
}

/** Registers the key routes on the console's app. */
export function keyPages(page: Hono<PageEnv>): void {
  page.get(`${ADMIN_BASE}/keys`, (c) => {
    const revoked = c.req.query("revoked");
    const changed = c.req.query("changed");
    if (revoked !== undefined) return keysPage(c, { done: `Key ${revoked} revoked: its next call is refused.` });
    return keysPage(c, changed === undefined ? {} : { done: `Access of key ${changed} changed: its next call is checked against it.` });
  });

  page.post(`${ADMIN_BASE}/keys`, async (c) => {
    const values = await keyFormValues(c);
    const answer = await apiRequest(c, c.get("principal"), "POST", "/v1/keys", createKeyBody(values));
    if (answer.status === 201) return keysPage(c, { created: answer.body as CreatedKeyWire }, 201);
    if (answer.status === 403) return errorPage(c, 403, "Not allowed", apiErrorText(answer));
    return keysPage(c, { values, error: apiErrorText(answer) }, shownStatus(answer.status));
  });

  page.post(`${ADMIN_BASE}/keys/:id/access`, async (c) => {
    const id = c.req.param("id");
    const answer = await apiRequest(c, c.get("principal"), "PATCH", `/v1/keys/${encodeURIComponent(id)}`, keyAccessBody(await keyFormValues(c)));
    if (answer.status === 200) return c.redirect(`${ADMIN_BASE}/keys?changed=${encodeURIComponent(id)}`, 303);
    if (answer.status === 400) return keysPage(c, { error: `Access of ${id} not changed: ${apiErrorText(answer)}` }, 400);
    return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not changed", apiErrorText(answer));
  });

  page.post(`${ADMIN_BASE}/keys/:id/revoke`, async (c) => {
    const id = c.req.param("id");
    const answer = await apiRequest(c, c.get("principal"), "DELETE", `/v1/keys/${encodeURIComponent(id)}`);
    if (answer.status === 204) return c.redirect(`${ADMIN_BASE}/keys?revoked=${encodeURIComponent(id)}`, 303);
    return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not revoked", apiErrorText(answer));
  });
}
