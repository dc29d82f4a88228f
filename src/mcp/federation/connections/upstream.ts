/**
 * What a per-user connection is to: an upstream, either a `per_user` remote MCP server or a
 * `per_user` OpenAPI source. Both share one table, one connect-link flow and one list, told
 * apart by the upstream's id in the row's `server` column: an MCP server's name as it is (what
 * rows held before sources could be connected), an OpenAPI source's name behind `openapi:`, which
 * no server name can contain (server-config.ts allows `[A-Za-z0-9_-]`), so the two never meet.
 */

/** The prefix of an OpenAPI source's upstream id. */
export const OPENAPI_UPSTREAM_PREFIX = "openapi:";

export type UpstreamKind = "mcp_server" | "openapi_source";

/** The upstream id of an OpenAPI source. */
export const sourceUpstream = (source: string): string => `${OPENAPI_UPSTREAM_PREFIX}${source}`;

/** An upstream id's kind and name, and how a sentence names it. */
export function describeUpstream(id: string): { kind: UpstreamKind; name: string; label: string } {
  if (id.startsWith(OPENAPI_UPSTREAM_PREFIX)) {
    const name = id.slice(OPENAPI_UPSTREAM_PREFIX.length);
    return { kind: "openapi_source", name, label: `API '${name}'` };
  }
  return { kind: "mcp_server", name: id, label: `MCP server '${id}'` };
}
