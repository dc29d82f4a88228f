/** @jsxImportSource hono/jsx */
/**
 * The console's Connections page: every principal's per-user connections to `per_user` MCP
 * servers and OpenAPI sources (GET /v1/connections?all=true, keyset-paged), each revocable through
 * DELETE /v1/connections/{server}?principal=. An admin sees and ends them but never calls with
 * them, and so gets no Reconnect here: a connection is only ever made by its own principal (the
 * chat site's page, chat-page/connections-routes.tsx).
 */
import type { Hono } from "hono";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { type AdminContext, errorPage, shownStatus } from "./admin-error.tsx";
import { ADMIN_BASE, ADMIN_SITE } from "./admin-site.ts";
import { apiErrorText, apiRequest } from "./api-request.ts";
import { ConnectionsPage, type ConnectionWire, readConnections } from "./connections-table.tsx";

const LIST = `${ADMIN_BASE}/connections`;

/** The form action revoking one principal's connection to one server. */
const revokePath = (row: Pick<ConnectionWire, "principal" | "server">): string =>
  `${LIST}/${encodeURIComponent(row.principal)}/${encodeURIComponent(row.server)}/revoke`;

async function connectionsPage(c: AdminContext, done?: string) {
  const read = await readConnections(c, LIST, true);
  if (!read.ok) return errorPage(c, shownStatus(read.answer.status), "Connections could not be listed", apiErrorText(read.answer));
  return renderPage(
    c,
    <ConnectionsPage
      site={ADMIN_SITE}
      title="Connections"
      intro="Each key's own accounts at per-user MCP servers and APIs. Revoking one ends it at once: the key's next call there asks it to connect again. Calls only ever use the calling key's own connection, never one listed here."
      empty="No connections."
      viewer={c.get("viewer")}
      rows={read.rows}
      showPrincipal={true}
      revokeAction={revokePath}
      nextHref={read.nextHref}
      done={done}
    />,
  );
}

export function connectionPages(page: Hono<PageEnv>): void {
  page.get(LIST, (c) => {
    const ended = c.req.query("ended");
    return connectionsPage(c, ended === undefined ? undefined : `Ended ${ended}.`);
  });

  page.post(`${LIST}/:principal/:server/revoke`, async (c) => {
    const { principal, server } = c.req.param();
    const query = new URLSearchParams({ principal });
    const answer = await apiRequest(c, c.get("principal"), "DELETE", `/v1/connections/${encodeURIComponent(server)}?${query.toString()}`);
    if (answer.status === 204) return c.redirect(`${LIST}?${new URLSearchParams({ ended: `${principal}'s connection to ${server}` }).toString()}`, 303);
    return errorPage(c, shownStatus(answer.status), answer.status === 404 ? "No such connection" : "Not revoked", apiErrorText(answer));
  });
}
