/** @jsxImportSource hono/jsx */
/** The console's error page, and the statuses a page answers with when it shows an API refusal. */
import type { Context } from "hono";
import { ErrorPage } from "../approvals-page/error-page.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { ADMIN_SITE } from "./admin-site.ts";

export type AdminContext = Context<PageEnv>;

export function errorPage(c: AdminContext, status: 400 | 403 | 404 | 409 | 413 | 422 | 500 | 502 | 503, title: string, message: string) {
  return renderPage(c, <ErrorPage title={title} message={message} viewer={c.get("viewer")} site={ADMIN_SITE} />, status);
}

/**
 * The status a page answers with when it shows an API refusal: the API's own, so a 503 (a queue
 * or store down: try again) is not reported as the console's fault; anything else is a 500.
 */
export const shownStatus = (status: number): 400 | 403 | 404 | 409 | 422 | 500 | 502 | 503 =>
  status === 400 || status === 403 || status === 404 || status === 409 || status === 422 || status === 502 || status === 503 ? status : 500;
