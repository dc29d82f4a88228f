/** @jsxImportSource hono/jsx */
/**
 * The chat site's Connections page: the signed-in key's own per-user connections
 * (GET /v1/connections), each reconnected (POST /v1/connections/{server}/reconnect, then straight
 * to the new one-time link, which this browser is signed in to open) or revoked
 * (DELETE /v1/connections/{server}). The API scopes every request to the key, so a person can
 * see and change only their own.
 */
import type { Context, Hono } from "hono";
import { apiErrorText, apiRequest } from "../admin/api-request.ts";
import { ConnectionsPage, type ConnectionWire, readConnections } from "../admin/connections-table.tsx";
import { ErrorPage } from "../approvals-page/error-page.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { CHAT_BASE, CHAT_SITE } from "./chat-site.ts";

/** The page's path; the navigation links it. */
export const CHAT_CONNECTIONS_PATH = `${CHAT_BASE}/connections`;

const serverPath = (row: Pick<ConnectionWire, "server">, action: "reconnect" | "revoke"): string =>
  `${CHAT_CONNECTIONS_PATH}/${encodeURIComponent(row.server)}/${action}`;

function errorPage(c: Context<PageEnv>, status: number, title: string, message: string) {
  const shown = status === 400 || status === 403 || status === 404 || status === 503 ? status : 500;
  return renderPage(c, <ErrorPage title={title} message={message} viewer={c.get("viewer")} site={CHAT_SITE} />, shown);
}

/** Registers the page's routes; called by chat-page-routes.tsx after its sign-in check. */
export function chatConnectionRoutes(page: Hono<PageEnv>): void {
  page.get(CHAT_CONNECTIONS_PATH, async (c) => {
    const read = await readConnections(c, CHAT_CONNECTIONS_PATH, false);
    if (!read.ok) return errorPage(c, read.answer.status, "Connections could not be listed", apiErrorText(read.answer));
    const ended = c.req.query("ended");
    return renderPage(
      c,
      <ConnectionsPage
        site={CHAT_SITE}
        title="My connections"
        intro="Your own accounts at the MCP servers and APIs that act as each person. A call there uses yours and no one else's. Reconnect to sign in again; revoke to end it now."
        empty="No connections yet: when a tool needs your own account, its answer gives you a link to connect it."
        viewer={c.get("viewer")}
        rows={read.rows}
        showPrincipal={false}
        revokeAction={(row) => serverPath(row, "revoke")}
        reconnectAction={(row) => serverPath(row, "reconnect")}
        nextHref={read.nextHref}
        done={ended === undefined ? undefined : `Ended ${ended}.`}
      />,
    );
  });

  page.post(`${CHAT_CONNECTIONS_PATH}/:server/reconnect`, async (c) => {
    const server = c.req.param("server");
    const answer = await apiRequest(c, c.get("principal"), "POST", `/v1/connections/${encodeURIComponent(server)}/reconnect`);
    if (answer.status !== 201) return errorPage(c, answer.status, "Reconnecting could not start", apiErrorText(answer));
    // The link is this site's own connect page (/chat/connect/<state>), made for this key.
    const link = new URL((answer.body as { url: string }).url);
    return c.redirect(link.pathname, 303);
  });

  page.post(`${CHAT_CONNECTIONS_PATH}/:server/revoke`, async (c) => {
    const server = c.req.param("server");
    const answer = await apiRequest(c, c.get("principal"), "DELETE", `/v1/connections/${encodeURIComponent(server)}`);
    if (answer.status === 204) return c.redirect(`${CHAT_CONNECTIONS_PATH}?${new URLSearchParams({ ended: `your connection to ${server}` }).toString()}`, 303);
    return errorPage(c, answer.status, answer.status === 404 ? "No such connection" : "Not revoked", apiErrorText(answer));
  });
}
