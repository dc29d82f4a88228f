/**
 * Which credential a call carried to its upstream, as its audit record names it (issue 30):
 * - `shared`: the deployment's own (a secret header, an admin's OAuth sign-in, a source's auth);
 * - `own`: the calling principal's per-user connection;
 * - `exchanged`: a token obtained by RFC 8693 exchange from the caller's own toolgate OAuth
 *   token (a `token_exchange` MCP server, src/mcp/federation/exchange-auth.ts);
 * - `identity`: only a signed identity JWT naming the principal (src/identity/).
 * A call that carried none (a built-in tool, a call that never ran) records null. The kind, never
 * the token: nothing about a credential's value reaches the log.
 */
export const CREDENTIAL_KINDS = ["shared", "own", "exchanged", "identity"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];
