/**
 * Each principal's own OAuth grant at a `per_user` remote MCP server, in D1 (`mcp_connections`,
 * migrations/0011_mcp_connections.sql). The grant is sealed with AES-256-GCM under MCP_TOKEN_KEY
 * with the principal and the server as additional data, so a sealed grant copied to another
 * principal's row (or server's) does not open. Status and times stay readable for the list.
 * `server` is the upstream's id (upstream.ts): an MCP server's name, or `openapi:<source>`.
 *
 * Every write drops the row's entry from this isolate's cache of opened grants
 * (connection-cache.ts) before it returns, so a change made here applies here at once.
 */
import { open, type Sealed, seal } from "../../../crypto/aes-gcm.ts";
import type { OAuthGrant } from "../../client/oauth/oauth-grant.ts";
import { connectionCache } from "./connection-cache.ts";

export const MCP_CONNECTIONS_TABLE = "mcp_connections";

/** Most rows one list page returns; the default is smaller. */
export const MAX_CONNECTIONS_PAGE = 200;

export type ConnectionStatus = "connected" | "needs_reconnect";

/** A connection as lists show it: never its grant. */
export interface ConnectionSummary {
  principal: string;
  server: string;
  status: ConnectionStatus;
  reason: string | null;
  connectedAt: number;
  updatedAt: number;
}

export interface StoredConnection extends ConnectionSummary {
  grantSealed: Sealed;
}

/** The additional data a grant is sealed with: whose and where. */
const sealContext = (principal: string, server: string): string => `${MCP_CONNECTIONS_TABLE}\n${principal}\n${server}`;

interface Row {
  principal: string;
  server: string;
  status: ConnectionStatus;
  reason: string | null;
  grant_sealed: string;
  connected_at: number;
  updated_at: number;
}

const toSummary = (row: Omit<Row, "grant_sealed">): ConnectionSummary => ({
  principal: row.principal,
  server: row.server,
  status: row.status,
  reason: row.reason,
  connectedAt: row.connected_at,
  updatedAt: row.updated_at,
});

export async function readConnection(db: D1Database, principal: string, server: string): Promise<StoredConnection | undefined> {
  const row = await db.prepare(`SELECT * FROM ${MCP_CONNECTIONS_TABLE} WHERE principal = ? AND server = ?`).bind(principal, server).first<Row>();
  return row === null ? undefined : { ...toSummary(row), grantSealed: sealedOf(row.grant_sealed) };
}

/** A row's sealed grant; corrupt text becomes one that never opens, so the call asks to connect again rather than failing. */
function sealedOf(text: string): Sealed {
  try {
    return JSON.parse(text) as Sealed;
  } catch {
    return { v: 1, iv: "", data: "" };
  }
}

/** The connection's grant, opened; undefined when it does not open (another key, or a row not its own). */
export async function openConnectionGrant(key: string, stored: StoredConnection): Promise<OAuthGrant | undefined> {
  const text = await open(key, sealContext(stored.principal, stored.server), stored.grantSealed);
  return text === undefined ? undefined : (JSON.parse(text) as OAuthGrant);
}

/** Stores a (re)connection or a refreshed grant; `connectedAt` is kept on a refresh. */
export async function writeConnection(db: D1Database, key: string, principal: string, server: string, grant: OAuthGrant, now: number): Promise<void> {
  const sealed = await seal(key, sealContext(principal, server), JSON.stringify(grant));
  await db
    .prepare(
      `INSERT INTO ${MCP_CONNECTIONS_TABLE} (principal, server, status, reason, grant_sealed, connected_at, updated_at) VALUES (?, ?, 'connected', NULL, ?, ?, ?)
       ON CONFLICT (principal, server) DO UPDATE SET status = 'connected', reason = NULL, grant_sealed = excluded.grant_sealed, updated_at = excluded.updated_at`,
    )
    .bind(principal, server, JSON.stringify(sealed), now, now)
    .run();
  connectionCache.forget(principal, server);
}

/** Keeps the grant (its client is reused when reconnecting) but records that the upstream refused it. */
export async function markNeedsReconnect(db: D1Database, principal: string, server: string, reason: string, now: number): Promise<void> {
  await db
    .prepare(`UPDATE ${MCP_CONNECTIONS_TABLE} SET status = 'needs_reconnect', reason = ?, updated_at = ? WHERE principal = ? AND server = ?`)
    .bind(reason, now, principal, server)
    .run();
  connectionCache.forget(principal, server);
}

/** Deletes one connection; true when there was one. */
export async function deleteConnection(db: D1Database, principal: string, server: string): Promise<boolean> {
  const result = await db.prepare(`DELETE FROM ${MCP_CONNECTIONS_TABLE} WHERE principal = ? AND server = ?`).bind(principal, server).run();
  connectionCache.forget(principal, server);
  return result.meta.changes > 0;
}

/** Deletes every connection of a principal (its key or grant was revoked). */
export async function deleteConnectionsOf(db: D1Database, principal: string): Promise<number> {
  const result = await db.prepare(`DELETE FROM ${MCP_CONNECTIONS_TABLE} WHERE principal = ?`).bind(principal).run();
  connectionCache.forgetPrincipal(principal);
  return result.meta.changes;
}

/** Deletes every connection to a server (it was removed). */
export async function deleteConnectionsTo(db: D1Database, server: string): Promise<void> {
  await db.prepare(`DELETE FROM ${MCP_CONNECTIONS_TABLE} WHERE server = ?`).bind(server).run();
  connectionCache.forgetUpstream(server);
}

/** Where a page ends: the last row's principal and server, which the next page starts after. */
export interface ConnectionCursor {
  principal: string;
  server: string;
}

/**
 * One page of connections, ordered by principal then server, after `cursor`: one principal's
 * (`principal` given) or everyone's. Keyset paging on the primary key, so a page costs the same
 * however deep it is; `next` is set when more rows may follow.
 */
export async function listConnections(
  db: D1Database,
  options: { principal?: string; cursor?: ConnectionCursor; limit: number },
): Promise<{ connections: ConnectionSummary[]; next: ConnectionCursor | undefined }> {
  const where: string[] = [];
  const params: string[] = [];
  if (options.principal !== undefined) {
    where.push("principal = ?");
    params.push(options.principal);
  }
  if (options.cursor !== undefined) {
    where.push("(principal, server) > (?, ?)");
    params.push(options.cursor.principal, options.cursor.server);
  }
  const limit = Math.min(Math.max(1, options.limit), MAX_CONNECTIONS_PAGE);
  const { results } = await db
    .prepare(
      `SELECT principal, server, status, reason, connected_at, updated_at FROM ${MCP_CONNECTIONS_TABLE}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY principal, server LIMIT ?`,
    )
    .bind(...params, limit)
    .all<Omit<Row, "grant_sealed">>();
  const connections = results.map(toSummary);
  const last = connections.at(-1);
  return { connections, next: connections.length === limit && last !== undefined ? { principal: last.principal, server: last.server } : undefined };
}
