/** @jsxImportSource hono/jsx */
/**
 * The table of per-user connections to MCP servers and OpenAPI sources (GET /v1/connections), shared by the console's Connections
 * page (everyone's, revoke only) and the chat site's (the signed-in key's own: reconnect and
 * revoke). What a row offers is the page's choice; the API decides whether it is allowed.
 */
import type { Context } from "hono";
import type { FC } from "hono/jsx";
import { Layout, type Viewer } from "../approvals-page/layout.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import type { PageSite } from "../approvals-page/page-site.ts";
import { type ApiAnswer, apiRequest } from "./api-request.ts";
import { Notices } from "./notices.tsx";
import { PostButton } from "./post-button.tsx";
import { TableHead } from "./table-head.tsx";

/** A row of GET /v1/connections: never its grant. */
export interface ConnectionWire {
  principal: string;
  /** The upstream's id: an MCP server's name, or `openapi:<source>`. */
  server: string;
  kind: "mcp_server" | "openapi_source";
  name: string;
  status: "connected" | "needs_reconnect";
  reason: string | null;
  connected_at: string;
  updated_at: string;
}

/** Rows per page of either site's list. */
const PAGE_SIZE = 50;

/**
 * One page of GET /v1/connections as the signed-in key (everyone's with `all`, which the API
 * allows admins only), from the request's `cursor`, with the next page's link under `listPath`;
 * the API's answer itself when it refused.
 */
export async function readConnections(
  c: Context<PageEnv>,
  listPath: string,
  all: boolean,
): Promise<{ ok: true; rows: ConnectionWire[]; nextHref: string | null } | { ok: false; answer: ApiAnswer }> {
  const query = new URLSearchParams({ ...(all ? { all: "true" } : {}), limit: String(PAGE_SIZE) });
  const cursor = c.req.query("cursor");
  if (cursor !== undefined && cursor !== "") query.set("cursor", cursor);
  const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/connections?${query.toString()}`);
  if (answer.status !== 200) return { ok: false, answer };
  const body = answer.body as { connections: ConnectionWire[]; next_cursor: string | null };
  const nextHref = body.next_cursor === null ? null : `${listPath}?${new URLSearchParams({ cursor: body.next_cursor }).toString()}`;
  return { ok: true, rows: body.connections, nextHref };
}

export interface ConnectionsTableProps {
  viewer: Viewer;
  rows: readonly ConnectionWire[];
  /** Whose rows these are shown as: everyone's (a Principal column) or the viewer's own. */
  showPrincipal: boolean;
  /** The form action that revokes a row; a reconnect action when the viewer may reconnect (their own rows only). */
  revokeAction: (row: ConnectionWire) => string;
  reconnectAction?: (row: ConnectionWire) => string;
}

export const ConnectionsTable: FC<ConnectionsTableProps> = ({ viewer, rows, showPrincipal, revokeAction, reconnectAction }) => (
  <div class="table-scroll">
    <table>
      <TableHead columns={[...(showPrincipal ? ["Principal"] : []), "Upstream", "Status", "Connected", "Updated", "Action"]} />
      <tbody>
        {rows.map((row) => (
          <tr data-connection={`${row.principal}/${row.server}`}>
            {showPrincipal ? (
              <td>
                <code>{row.principal}</code>
              </td>
            ) : null}
            <td>
              {row.name}
              <div class="muted">{row.kind === "openapi_source" ? "API" : "MCP server"}</div>
            </td>
            <td>
              <span class={`status ${row.status === "connected" ? "approved" : "pending"}`}>
                {row.status === "connected" ? "connected" : "needs reconnect"}
              </span>
              {row.reason === null ? null : <div class="muted">{row.reason}</div>}
            </td>
            <td>{row.connected_at}</td>
            <td>{row.updated_at}</td>
            <td>
              {reconnectAction === undefined ? null : (
                <PostButton viewer={viewer} action={reconnectAction(row)} label="Reconnect" ariaLabel={`Reconnect ${row.server}`} kind="approve" />
              )}
              <PostButton
                viewer={viewer}
                action={revokeAction(row)}
                label="Revoke"
                ariaLabel={`Revoke ${showPrincipal ? `${row.principal}'s connection to ` : ""}${row.server}`}
                kind="deny"
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

export interface ConnectionsPageProps extends ConnectionsTableProps {
  site: PageSite;
  title: string;
  /** What the page's rows are, above them. */
  intro: string;
  /** Shown instead of the table when there are no rows. */
  empty: string;
  /** The next page's link (the API's cursor), or null on the last. */
  nextHref: string | null;
  done?: string | undefined;
}

/** A whole Connections page of one site: its intro, the last action's notice, the table and the next page's link. */
export const ConnectionsPage: FC<ConnectionsPageProps> = ({ site, title, intro, empty, nextHref, done, ...table }) => (
  <Layout title={title} viewer={table.viewer} site={site}>
    <h2>{title}</h2>
    <p class="muted">{intro}</p>
    <Notices done={done} />
    {table.rows.length === 0 ? <p class="muted">{empty}</p> : <ConnectionsTable {...table} />}
    {nextHref === null ? null : (
      <p>
        <a href={nextHref}>Next page</a>
      </p>
    )}
  </Layout>
);
