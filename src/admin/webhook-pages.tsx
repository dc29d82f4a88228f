/** @jsxImportSource hono/jsx */
/**
 * The console's webhook routes: the hooks list and events come from the /v1/hooks routes (admin
 * only), the deliveries from their table; a re-run is POST /v1/hooks/deliveries/{id}/rerun's.
 * Registered by admin-routes.tsx after sign-in, so the session, CSRF and Origin checks apply.
 */
import type { Hono } from "hono";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../webhooks/delivery-store.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { load } from "./loaded.tsx";
import { recentDeliveries } from "./recent-deliveries.ts";
import { type HookEventWire, type HookWire, WebhooksPage } from "./webhooks-page.tsx";

const LIST = `${ADMIN_BASE}/webhooks`;
const EVENTS_SHOWN = 50;

const isStatus = (value: string | undefined): value is DeliveryStatus => (DELIVERY_STATUSES as readonly string[]).includes(value ?? "");

async function webhooksPage(c: AdminContext, done?: string) {
  const principal = c.get("principal");
  const hooks = await apiRequest(c, principal, "GET", "/v1/hooks");
  if (hooks.status !== 200)
    return errorPage(c, shownStatus(hooks.status), hooks.status === 403 ? "Webhooks are for admins" : "Webhooks could not be listed", apiErrorText(hooks));
  const asked = c.req.query("status");
  const status = isStatus(asked) ? asked : undefined;
  const [deliveries, events] = await Promise.all([
    load("The webhook deliveries (D1)", () => recentDeliveries(c.env.DB, status)),
    load("The webhook events (D1)", async () => {
      const answer = await apiRequest(c, principal, "GET", `/v1/hooks/events?limit=${EVENTS_SHOWN}`);
      if (answer.status !== 200) throw new Error(`GET /v1/hooks/events answered ${answer.status}: ${apiErrorText(answer)}`);
      return (answer.body as { events: HookEventWire[] }).events;
    }),
  ]);
  return renderPage(
    c,
    <WebhooksPage
      viewer={c.get("viewer")}
      hooks={(hooks.body as { hooks: HookWire[] }).hooks}
      deliveries={deliveries}
      events={events}
      status={status}
      done={done}
    />,
  );
}

export function webhookPages(page: Hono<PageEnv>): void {
  page.get(LIST, (c) => {
    const rerun = c.req.query("rerun");
    return webhooksPage(c, rerun === undefined ? undefined : `Delivery ${rerun} queued again: its calls run in a moment.`);
  });

  page.post(`${LIST}/deliveries/:id/rerun`, async (c) => {
    const id = c.req.param("id");
    const answer = await apiRequest(c, c.get("principal"), "POST", `/v1/hooks/deliveries/${encodeURIComponent(id)}/rerun`);
    if (answer.status === 202) return c.redirect(`${LIST}?${new URLSearchParams({ rerun: id }).toString()}`, 303);
    return errorPage(c, shownStatus(answer.status), answer.status === 403 ? "Not allowed" : "Not re-run", apiErrorText(answer));
  });
}
