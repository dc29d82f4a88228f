/**
 * OAuth tokens for a remote MCP server that requires sign-in: the bearer token its client sends,
 * refreshed before it expires and after a 401, and the server marked as needing sign-in again
 * (in KV, so every isolate shows it) when the authorization server refuses the refresh.
 *
 * A server configured with an `Authorization` header from a secret uses that instead.
 */
import { loadConfig } from "../../config/config.ts";
import type { McpClientError } from "../client/json-rpc.ts";
import type { McpAuth } from "../client/mcp-client.ts";
import { createOAuthFetch } from "../client/oauth/oauth-fetch.ts";
import { grantExpired, OAuthFlowError, type OAuthGrant } from "../client/oauth/oauth-grant.ts";
import { markStoredNeedsSignIn, openGrant, readSignIn, tokenKey, writeSignIn } from "./oauth-store.ts";
import { type RefreshUnderWay, type ServerState, type SignInState, usesHeaderAuth } from "./server-state.ts";

/** How long an isolate uses a grant before reading it again (another isolate may have refreshed it). */
const GRANT_RELOAD_MS = 30_000;
/** How often a caller waiting for this isolate's refresh of the same grant looks whether it has ended. */
const REFRESH_POLL_MS = 2;

/** OAuth errors after which only a person signing in again helps (RFC 6749 section 5.2). */
export const SIGN_IN_AGAIN: ReadonlySet<string> = new Set(["invalid_grant", "invalid_client", "unauthorized_client", "invalid_scope", "access_denied"]);

/** The token source for the server's client, or undefined when its headers authenticate it. */
export function serverAuth(env: Env, state: ServerState, now: () => number): McpAuth | undefined {
  if (usesHeaderAuth(state)) return undefined;
  return {
    async authorization(signal) {
      const grant = await currentGrant(env, state, now);
      if (grant === undefined) return undefined;
      if (!grantExpired(grant, now())) return `Bearer ${grant.accessToken}`;
      const renewed = await renewGrant(env, state, grant, now, signal);
      return renewed === undefined ? undefined : `Bearer ${renewed.accessToken}`;
    },
    async renew(error: McpClientError, signal) {
      const grant = await currentGrant(env, state, now);
      if (grant === undefined || error.challenge?.error === "insufficient_scope") {
        const scope = error.challenge?.scope;
        markNeedsSignIn(
          state,
          grant === undefined ? `the server requires sign-in (${error.message})` : `the server asks for more scope${scope === undefined ? "" : ` (${scope})`}`,
          now,
        );
        return false;
      }
      return (await renewGrant(env, state, grant, now, signal)) !== undefined;
    },
  };
}

/** The server's sign-in as KV holds it, for the isolate's state (status only when the key is missing). */
export async function loadSignIn(env: Env, server: string, now: number): Promise<SignInState | undefined> {
  const stored = await readSignIn(env.KV, server);
  if (stored === null) return undefined;
  const key = tokenKey(env);
  const grant = key.ok ? await openGrant(key.key, server, stored) : undefined;
  return {
    status: grant === undefined ? "needs_sign_in" : stored.status,
    ...(grant === undefined
      ? { reason: key.ok ? "the stored tokens do not open under the current MCP_TOKEN_KEY" : key.message }
      : stored.reason === undefined
        ? {}
        : { reason: stored.reason }),
    signedInBy: stored.signedInBy,
    signedInAt: stored.signedInAt,
    ...(grant === undefined ? {} : { grant }),
    readAt: now,
  };
}

async function currentGrant(env: Env, state: ServerState, now: () => number): Promise<OAuthGrant | undefined> {
  const known = state.signIn;
  if (known !== undefined && now() - known.readAt < GRANT_RELOAD_MS) return known.status === "signed_in" ? known.grant : undefined;
  const loaded = await loadSignIn(env, state.config.name, now());
  // An in-memory "needs sign-in" (a 401 before any sign-in) stays until a sign-in is stored.
  state.signIn = loaded ?? (known === undefined ? undefined : { ...known, readAt: now() });
  return state.signIn?.status === "signed_in" ? state.signIn.grant : undefined;
}

/**
 * Refreshes the grant, once in this isolate however many callers find it due at the same moment
 * (the three lists after a sign-in's tool list are sent at once). Refresh tokens rotate (OAuth
 * 2.1 section 4.3.1): a second refresh with the same token is refused with invalid_grant, and
 * whether KV already held the first one's result when that refusal arrived was up to timing, so
 * a busy isolate marked a server that had just been refreshed as needing sign-in.
 */
async function renewGrant(env: Env, state: ServerState, grant: OAuthGrant, now: () => number, signal: AbortSignal): Promise<OAuthGrant | undefined> {
  const underWay = state.refreshing;
  if (underWay !== undefined && underWay.accessToken === grant.accessToken && now() < underWay.until) {
    await refreshEnded(state, underWay, now, signal);
    const known = state.signIn;
    return known?.status === "signed_in" && known.grant !== undefined && known.grant.accessToken !== grant.accessToken ? known.grant : undefined;
  }
  // The token request is bounded by the server's timeout; a refresh still marked after it was cancelled with its request.
  const mine: RefreshUnderWay = { accessToken: grant.accessToken, until: now() + state.config.timeout_ms };
  state.refreshing = mine;
  try {
    return await refreshAndStore(env, state, grant, now, signal);
  } finally {
    if (state.refreshing === mine) state.refreshing = undefined;
  }
}

/**
 * Resolves once the refresh has ended, woken only by the caller's own timers: a promise the
 * refreshing request settles could resume this caller in that request's I/O context on workerd
 * (see Federation's #syncEnded).
 */
async function refreshEnded(state: ServerState, underWay: RefreshUnderWay, now: () => number, signal: AbortSignal): Promise<void> {
  while (state.refreshing === underWay && now() < underWay.until && !signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
  }
}

/**
 * Refreshes the grant and stores the result. When the authorization server refuses, another
 * isolate may have rotated the refresh token first: its stored grant is used if there is a newer
 * one; otherwise the server is marked as needing sign-in (a refusal) or left as it is (the
 * authorization server unreachable: the next call tries again).
 */
async function refreshAndStore(env: Env, state: ServerState, grant: OAuthGrant, now: () => number, signal: AbortSignal): Promise<OAuthGrant | undefined> {
  const key = tokenKey(env);
  if (!key.ok) return undefined;
  const name = state.config.name;
  try {
    const { refreshGrant } = await import("../client/oauth/sign-in-flow.ts");
    const renewed = await refreshGrant(grant, createOAuthFetch(loadConfig(env).outboundAllow, signal), now());
    const signedIn = state.signIn;
    await writeSignIn(env.KV, key.key, name, renewed, {
      status: "signed_in",
      signedInBy: signedIn?.signedInBy ?? "unknown",
      signedInAt: signedIn?.signedInAt ?? now(),
      updatedAt: now(),
    });
    state.signIn = { ...(signedIn ?? { signedInBy: "unknown", signedInAt: now() }), status: "signed_in", grant: renewed, readAt: now() };
    return renewed;
  } catch (error) {
    const stored = await loadSignIn(env, name, now());
    if (stored?.status === "signed_in" && stored.grant !== undefined && stored.grant.accessToken !== grant.accessToken) {
      state.signIn = stored;
      return stored.grant;
    }
    const reason = `refreshing the token failed: ${error instanceof Error ? error.message : String(error)}`;
    console.warn(`MCP server '${name}': ${reason}`);
    if (error instanceof OAuthFlowError && SIGN_IN_AGAIN.has(error.code)) {
      markNeedsSignIn(state, reason, now);
      await markStoredNeedsSignIn(env.KV, name, reason, now());
    }
    return undefined;
  }
}

function markNeedsSignIn(state: ServerState, reason: string, now: () => number): void {
  const { grant: _grant, ...rest } = state.signIn ?? { readAt: now() };
  state.signIn = { ...rest, status: "needs_sign_in", reason, readAt: now() };
}
