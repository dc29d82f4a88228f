/**
 * The token source of one call to a `per_user` server: the caller's own grant from
 * `mcp_connections`, refreshed as shared grants are (before it expires, and once after a 401).
 * A refresh the authorization server refuses marks the connection as needing a reconnect, so the
 * call ends with CONNECTION_REQUIRED instead of an upstream error.
 *
 * The opened grant is kept in this isolate for up to 10 s (connection-cache.ts, which says what
 * that means for revocation across isolates); a miss reads the row from D1 and opens it.
 */
import { loadConfig } from "../../../config/config.ts";
import type { McpAuth } from "../../client/mcp-target.ts";
import { createOAuthFetch } from "../../client/oauth/oauth-fetch.ts";
import { grantExpired, OAuthFlowError, type OAuthGrant } from "../../client/oauth/oauth-grant.ts";
import { tokenKey } from "../oauth-store.ts";
import { SIGN_IN_AGAIN } from "../server-auth.ts";
import { type ConnectionCache, connectionCache } from "./connection-cache.ts";
import { markNeedsReconnect, openConnectionGrant, readConnection, writeConnection } from "./connection-store.ts";

/** A connection ready for a call, with what became of it by the end (a refusal's reason). */
export interface UserAuth extends McpAuth {
  /** Set when the upstream refused the connection during this call: the reason to show. */
  readonly refused: string | undefined;
}

export type UserAuthLookup = { ok: true; auth: UserAuth } | { ok: false; reason: string; unavailable?: boolean };

/** The caller's connection to `server` (an upstream id, upstream.ts), or why there is none to use. */
export async function userAuth(
  env: Env,
  server: string,
  principal: string,
  now: () => number,
  cache: ConnectionCache = connectionCache,
): Promise<UserAuthLookup> {
  const key = tokenKey(env);
  if (!key.ok) return { ok: false, reason: key.message, unavailable: true };
  let grant: OAuthGrant | undefined = cache.get(principal, server);
  if (grant === undefined) {
    const stored = await readConnection(env.DB, principal, server);
    if (stored === undefined) return { ok: false, reason: "you have not connected your own account there yet" };
    if (stored.status === "needs_reconnect") return { ok: false, reason: `your connection needs renewing (${stored.reason ?? "the server refused it"})` };
    grant = await openConnectionGrant(key.key, stored);
    if (grant === undefined) return { ok: false, reason: "your stored connection no longer opens (MCP_TOKEN_KEY changed)" };
    cache.set(principal, server, grant);
  }
  return { ok: true, auth: connectionAuth(env, key.key, server, principal, grant, now) };
}

/** The token source over one opened grant: refreshed when due or refused, the refusal recorded. */
function connectionAuth(env: Env, key: string, server: string, principal: string, opened: OAuthGrant, now: () => number): UserAuth {
  let grant: OAuthGrant = opened;
  let refused: string | undefined;

  const refresh = async (signal: AbortSignal): Promise<OAuthGrant | undefined> => {
    try {
      const { refreshGrant } = await import("../../client/oauth/sign-in-flow.ts");
      const renewed = await refreshGrant(grant, createOAuthFetch(loadConfig(env).outboundAllow, signal), now());
      await writeConnection(env.DB, key, principal, server, renewed, now());
      grant = renewed;
      return renewed;
    } catch (error) {
      // Refresh tokens rotate: another request of this principal may have refreshed first.
      const again = await readConnection(env.DB, principal, server);
      const theirs = again?.status === "connected" ? await openConnectionGrant(key, again) : undefined;
      if (theirs !== undefined && theirs.accessToken !== grant.accessToken) {
        grant = theirs;
        return theirs;
      }
      const reason = `refreshing your token failed: ${error instanceof Error ? error.message : String(error)}`;
      if (error instanceof OAuthFlowError && SIGN_IN_AGAIN.has(error.code)) {
        refused = reason;
        await markNeedsReconnect(env.DB, principal, server, reason, now());
      }
      return undefined;
    }
  };

  return {
    get refused() {
      return refused;
    },
    async authorization(signal) {
      if (!grantExpired(grant, now())) return `Bearer ${grant.accessToken}`;
      const renewed = await refresh(signal);
      return renewed === undefined ? undefined : `Bearer ${renewed.accessToken}`;
    },
    async renew(error, signal) {
      // Already refused in this call (before sending): a second refresh would be refused too.
      if (refused !== undefined) return false;
      if (error.challenge?.error === "insufficient_scope") {
        refused = `the server asks for more scope${error.challenge.scope === undefined ? "" : ` (${error.challenge.scope})`}`;
        await markNeedsReconnect(env.DB, principal, server, refused, now());
        return false;
      }
      return (await refresh(signal)) !== undefined;
    },
  };
}
