/**
 * The caller's own connections to `per_user` MCP servers (issue 30). Behind the /v1 door, so
 * every route knows its principal. A principal sees, renews and ends only its own; an admin may
 * list and end anyone's (`principal=`, or `all=true` to list everyone's) but never calls with
 * them: calls always use the calling key's own row.
 *
 *   GET    /v1/connections?limit=&cursor=&principal=&all=   one page, `next_cursor` when more follow
 *   POST   /v1/connections/{server}/reconnect               a new one-time link for the caller
 *   DELETE /v1/connections/{server}?principal=              ends a connection (204), 404 when none
 *
 * `{server}` is the upstream's id (upstream.ts): an MCP server's name, or `openapi:<source>`.
 */
import { Hono } from "hono";
import type { Principal } from "../../../auth/principal.ts";
import { fromBase64url, toBase64url } from "../../../crypto/encoding.ts";
import { failureResponse } from "../../../http/request-failure.ts";
import { requestOrigin } from "../../../http/request-origin.ts";
import type { AppEnv } from "../../../http/types.ts";
import { openApiSources } from "../../../openapi-sources/runtime-sources.ts";
import { sourceToolset } from "../../../openapi-sources/source-config.ts";
import { sourceConnector } from "../../../openapi-sources/source-connection.ts";
import { registry } from "../../../registry/registry.ts";
import { federation } from "../federation.ts";
import type { SignInStart } from "../start-sign-in.ts";
import { type ConnectionCursor, deleteConnection, listConnections, MAX_CONNECTIONS_PAGE } from "./connection-store.ts";
import { describeUpstream } from "./upstream.ts";

const DEFAULT_PAGE = 50;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const encodeCursor = (cursor: ConnectionCursor): string => toBase64url(encoder.encode(JSON.stringify([cursor.principal, cursor.server])));

function decodeCursor(text: string): ConnectionCursor | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(fromBase64url(text)));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string")
      return { principal: value[0], server: value[1] };
  } catch {
    // Falls through to undefined: the caller reports the cursor as invalid.
  }
  return undefined;
}

/** Whose rows the request names: its own unless an admin names someone (or everyone). */
function subjectOf(principal: Principal, named: string | undefined, all: boolean): { ok: true; principal: string | undefined } | { ok: false } {
  if (principal.role !== "admin")
    return named === undefined || named === principal.keyId ? (all ? { ok: false } : { ok: true, principal: principal.keyId }) : { ok: false };
  if (all) return { ok: true, principal: undefined };
  return { ok: true, principal: named ?? principal.keyId };
}

export const connectionsRoutes = new Hono<AppEnv>()
  .get("/v1/connections", async function listOwnConnections(c) {
    const principal = c.get("principal");
    const { limit: limitText, cursor: cursorText, principal: named, all } = c.req.query();
    const subject = subjectOf(principal, named, all === "true");
    if (!subject.ok) return failureResponse(c, { kind: "forbidden", required: ["admin"], role: principal.role });
    const limit = limitText === undefined ? DEFAULT_PAGE : Number(limitText);
    const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONNECTIONS_PAGE || (cursorText !== undefined && cursor === undefined)) {
      return failureResponse(c, {
        kind: "invalid_request",
        issues: [
          ...(Number.isInteger(limit) && limit >= 1 && limit <= MAX_CONNECTIONS_PAGE
            ? []
            : [{ path: "limit", message: `must be an integer from 1 to ${MAX_CONNECTIONS_PAGE}; received ${limitText}` }]),
          ...(cursorText !== undefined && cursor === undefined ? [{ path: "cursor", message: "is not a cursor this list returned (next_cursor)" }] : []),
        ],
      });
    }
    const page = await listConnections(c.env.DB, {
      limit,
      ...(subject.principal === undefined ? {} : { principal: subject.principal }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    return c.json({
      connections: page.connections.map((row) => ({
        principal: row.principal,
        server: row.server,
        kind: describeUpstream(row.server).kind,
        name: describeUpstream(row.server).name,
        status: row.status,
        reason: row.reason,
        connected_at: new Date(row.connectedAt).toISOString(),
        updated_at: new Date(row.updatedAt).toISOString(),
      })),
      next_cursor: page.next === undefined ? null : encodeCursor(page.next),
    });
  })
  .post("/v1/connections/:server/reconnect", async function reconnect(c) {
    const keyId = c.get("principal").keyId;
    const server = c.req.param("server");
    const upstream = describeUpstream(server);
    const started =
      upstream.kind === "openapi_source"
        ? await sourceConnection(c.env, upstream.name, keyId, requestOrigin(c.req.url))
        : await federation.startSignIn(c.env, server, keyId, requestOrigin(c.req.url), keyId);
    if (started === undefined)
      return failureResponse(
        c,
        upstream.kind === "openapi_source" ? { kind: "unknown_openapi_source", name: upstream.name } : { kind: "unknown_mcp_server", name: server },
      );
    if (!started.ok) return failureResponse(c, { kind: "mcp_sign_in_failed", reason: started.reason, detail: started.detail });
    return c.json({ server, url: started.signInUrl, expires_at: new Date(started.expiresAt).toISOString() }, 201);
  })
  .delete("/v1/connections/:server", async function endConnection(c) {
    const principal = c.get("principal");
    const subject = subjectOf(principal, c.req.query("principal"), false);
    if (!subject.ok || subject.principal === undefined) return failureResponse(c, { kind: "forbidden", required: ["admin"], role: principal.role });
    const server = c.req.param("server");
    if (!(await deleteConnection(c.env.DB, subject.principal, server))) return failureResponse(c, { kind: "not_found", method: "DELETE", path: c.req.path });
    return c.body(null, 204);
  });

/** A new connect link at a `per_user` OpenAPI source whose tools this isolate serves; undefined when there is none such. */
async function sourceConnection(env: Env, source: string, principal: string, origin: string): Promise<SignInStart | undefined> {
  // Runtime sources register as a request needs them; build-time ones at start-up.
  await openApiSources.ensure(env);
  const link = sourceConnector(source);
  if (link === undefined || registry.namesInToolset(sourceToolset(source)).length === 0) return undefined;
  return link(env, principal, origin);
}
