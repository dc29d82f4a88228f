/**
 * Every key shape this Worker writes to KV. docs/storage.md has a row for each, with its value
 * shape and lifetime; change both together.
 */

/** A runtime-created toolset: JSON `CustomToolsetRecord`, no expiry, deleted through the API. */
export const CUSTOM_TOOLSET_PREFIX = "toolset:custom:";
export const customToolsetKey = (name: string): string => `${CUSTOM_TOOLSET_PREFIX}${name}`;

/**
 * The full text of a result too large to return inline: JSON `StoredResult`, expiring after
 * RESULT_TTL_SECONDS (at least KV's 60 s minimum).
 */
export const STORED_RESULT_PREFIX = "result:";
export const storedResultKey = (handle: string): string => `${STORED_RESULT_PREFIX}${handle}`;

/**
 * A tool's last availability check: JSON `StoredAvailability` (available, reason, checkedAt,
 * lastGoodAt). Freshness comes from checkedAt (30 s), not from the key's expiry (120 s, above
 * KV's 60 s minimum).
 */
export const AVAILABILITY_PREFIX = "avail:";
export const availabilityKey = (tool: string): string => `${AVAILABILITY_PREFIX}${tool}`;

/**
 * A sign-in to the signed-in pages (/approvals, /admin, /chat share one), keyed by the SHA-256
 * (hex) of the random sign-in id the cookie carries, so reading KV never yields a usable cookie: JSON `PageSignIn`, expiring with
 * the sign-in (PAGE_SIGN_IN_TTL_SECONDS in src/approvals-page/sign-in-store.ts). The prefix
 * still says "session": it names keys already stored, so it stays.
 */
export const APPROVALS_PAGE_SIGN_IN_PREFIX = "approvals-session:";
export const approvalsPageSignInKey = (idDigest: string): string => `${APPROVALS_PAGE_SIGN_IN_PREFIX}${idDigest}`;

/**
 * A remote MCP server configured through the API: JSON `StoredMcpServer` (the configuration and
 * when it was written), no expiry, removed by `DELETE /v1/mcp-servers/{name}`. One key per
 * server, so two admins adding servers at once never overwrite each other.
 */
export const MCP_SERVER_PREFIX = "mcp:server:";
export const mcpServerKey = (name: string): string => `${MCP_SERVER_PREFIX}${name}`;

/**
 * A remote MCP server's tool list: JSON `CachedToolList` (tools, transport, fetchedAt, the URL
 * it came from). Freshness comes from fetchedAt and MCP_TOOLS_TTL_SECONDS; the key itself
 * expires after a day, so a server removed elsewhere leaves nothing behind for long.
 */
export const MCP_TOOLS_PREFIX = "mcp:tools:";
export const mcpToolsKey = (server: string): string => `${MCP_TOOLS_PREFIX}${server}`;

/**
 * The pinned definitions of one remote MCP server's tools: JSON `ServerPins`, remote tool name →
 * the SHA-256 of its first-seen definition and any changed one awaiting acceptance. No expiry.
 */
export const MCP_PINS_PREFIX = "mcp:pins:";
export const mcpPinsKey = (server: string): string => `${MCP_PINS_PREFIX}${server}`;

/**
 * toolgate's OAuth sign-in at one remote MCP server: JSON `StoredSignIn` (status, who signed in
 * and when, and the grant (tokens, client, authorization server) sealed with AES-GCM under
 * MCP_TOKEN_KEY, bound to this key's name). No expiry; removed with the server.
 */
export const MCP_OAUTH_PREFIX = "mcp:oauth:";
export const mcpOAuthKey = (server: string): string => `${MCP_OAUTH_PREFIX}${server}`;

/**
 * A sign-in to a remote MCP server under way, keyed by the SHA-256 of its OAuth `state`: JSON
 * `StoredSignInFlow` (server, admin, browser binding, the sealed PKCE verifier and client).
 * Expires after SIGN_IN_FLOW_TTL_SECONDS (600); deleted when the callback uses it.
 */
export const MCP_OAUTH_FLOW_PREFIX = "mcp:oauth-flow:";
export const mcpOAuthFlowKey = (stateDigest: string): string => `${MCP_OAUTH_FLOW_PREFIX}${stateDigest}`;

/**
 * An OpenAPI source added through the API: JSON `StoredOpenApiSource` (configuration, the pinned
 * spec's SHA-256 and summary, a changed spec awaiting acceptance, problems), no expiry, removed by
 * `DELETE /v1/openapi-sources/{name}`. One key per source, as for MCP servers.
 */
export const OPENAPI_SOURCE_PREFIX = "openapi:source:";
export const openApiSourceKey = (name: string): string => `${OPENAPI_SOURCE_PREFIX}${name}`;

/**
 * One converted spec of a source: JSON `ConvertedSpec` (its operations, inputs only), keyed by the
 * SHA-256 (hex) of the spec's text, so the pinned spec and a changed one awaiting acceptance sit
 * side by side. No expiry; deleted when no longer pinned or pending, and with the source.
 */
export const OPENAPI_OPERATIONS_PREFIX = "openapi:ops:";
export const openApiOperationsKey = (name: string, specSha256: string): string => `${OPENAPI_OPERATIONS_PREFIX}${name}:${specSha256}`;
