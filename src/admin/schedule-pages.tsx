/** @jsxImportSource hono/jsx */
/**
 * The console's schedule routes: the list is GET /v1/schedules's (an admin sees every key's), a
 * pause, resume or delete the API route's, so the console adds no rule of its own. Registered
 * by admin-routes.tsx after sign-in, so the session, CSRF and Origin checks apply.
 */
import type { Hono } from "hono";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import type { ScheduleSummaryWire } from "../schedules/schedule-wire.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { SchedulesPage } from "./schedules-page.tsx";

const LIST = `${ADMIN_BASE}/schedules`;
/** The API's most per page: a console lists the newest ones. */
const LISTED = 200;

const CHANGES = {
  pause: { method: "POST", path: (id: string) => `/v1/schedules/${id}/pause`, ok: 200, done: "Paused" },
  resume: { method: "POST", path: (id: string) => `/v1/schedules/${id}/resume`, ok: 200, done: "Resumed" },
  delete: { method: "DELETE", path: (id: string) => `/v1/schedules/${id}`, ok: 204, done: "Deleted" },
} as const;

async function schedulesPage(c: AdminContext, done?: string) {
  const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/schedules?limit=${LISTED}`);
  if (answer.status !== 200) return errorPage(c, shownStatus(answer.status), "Schedules could not be listed", apiErrorText(answer));
  const { schedules } = answer.body as { schedules: ScheduleSummaryWire[] };
  return renderPage(c, <SchedulesPage viewer={c.get("viewer")} schedules={schedules} done={done} />);
}

export function schedulePages(page: Hono<PageEnv>): void {
  page.get(LIST, (c) => {
    const done = c.req.query("done");
    return schedulesPage(c, done === undefined ? undefined : done.slice(0, 200));
  });

  for (const [name, change] of Object.entries(CHANGES)) {
    page.post(`${LIST}/:id/${name}`, async (c) => {
      const id = c.req.param("id");
      const answer = await apiRequest(c, c.get("principal"), change.method, change.path(encodeURIComponent(id)));
      if (answer.status === change.ok) return c.redirect(`${LIST}?${new URLSearchParams({ done: `${change.done} schedule ${id}.` }).toString()}`, 303);
      return errorPage(c, shownStatus(answer.status), answer.status === 404 ? "No such schedule" : `Not ${change.done.toLowerCase()}`, apiErrorText(answer));
    });
  }
}
