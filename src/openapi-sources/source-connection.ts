/**
 * A `per_user` OpenAPI source's side of per-user connections (issue 30, through the same
 * machinery as `per_user` MCP servers, src/mcp/federation/connections/): the one-time connect
 * link, and the caller's own token for one call, or CONNECTION_REQUIRED naming a fresh link.
 *
 * The authorization server is known from the configuration or the spec (user-oauth.ts), so the
 * link skips the discovery and registration an MCP server's sign-in runs: toolgate is the client
 * the admin registered there. The flow after that is the MCP one: the pending sign-in (PKCE
 * verifier, client) sealed in KV under a 256-bit `state`, the link opened once by the browser
 * signed in as the principal it was made for, the callback bound to that browser's cookie
 * (sign-in-routes.ts), the grant stored sealed with the principal and upstream as associated data.
 */
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { randomToken } from "../approvals-page/random-token.ts";
import { McpClientError } from "../mcp/client/json-rpc.ts";
import type { PendingSignIn } from "../mcp/client/oauth/oauth-grant.ts";
import type { UserAuth } from "../mcp/federation/connections/connection-auth.ts";
import { type ConnectLink, connectionRequired, perUserAuth } from "../mcp/federation/connections/per-user-call.ts";
import { sourceUpstream } from "../mcp/federation/connections/upstream.ts";
import { SIGN_IN_FLOW_TTL_SECONDS, tokenKey, writeFlow } from "../mcp/federation/oauth-store.ts";
import { CONNECT_PATH, SIGN_IN_CALLBACK_PATH, type SignInStart } from "../mcp/federation/start-sign-in.ts";
import { secretValue } from "../net/secret-headers.ts";
import type { ToolContext } from "../registry/types.ts";
import type { PerUserSourceAuth } from "./source-config.ts";
import type { UserOAuthEndpoints } from "./user-oauth.ts";

/** The connect-link makers of this isolate's `per_user` sources, by source name, set as their tools register. */
const connectors = new Map<string, ConnectLink>();

/** The connect-link maker of a registered `per_user` source (the reconnect route's), if there is one. */
export const sourceConnector = (source: string): ConnectLink | undefined => connectors.get(source);

/** Forgets `source`'s connect-link maker: its auth is no longer `per_user`. */
export const dropSourceConnector = (source: string): void => void connectors.delete(source);

/** Makes `source`'s connect-link maker and keeps it for the reconnect route. */
export function sourceConnectLink(source: string, auth: PerUserSourceAuth, endpoints: UserOAuthEndpoints): ConnectLink {
  const link: ConnectLink = (env, principal, origin) => startSourceConnection(env, source, auth, endpoints, principal, origin);
  connectors.set(source, link);
  return link;
}

/** Prepares `principal`'s connection at the source's authorization server and answers the link to open. */
async function startSourceConnection(
  env: Env,
  source: string,
  auth: PerUserSourceAuth,
  endpoints: UserOAuthEndpoints,
  principal: string,
  origin: string,
): Promise<SignInStart> {
  const key = tokenKey(env);
  if (!key.ok) return { ok: false, reason: "not_configured", detail: key.message };
  const secret = auth.client_secret === undefined ? undefined : secretValue(env, auth.client_secret.secret);
  if (auth.client_secret !== undefined && secret === undefined)
    return { ok: false, reason: "not_configured", detail: `the client secret ${auth.client_secret.secret} is not set` };
  // RFC 8414's shape, so the SDK's authorization, exchange and refresh steps use these endpoints and this client authentication.
  const metadata: AuthorizationServerMetadata = {
    issuer: new URL(endpoints.authorizationUrl).origin,
    authorization_endpoint: endpoints.authorizationUrl,
    token_endpoint: endpoints.tokenUrl,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: [secret === undefined ? "none" : auth.client_auth],
  };
  const client = { client_id: auth.client_id, ...(secret === undefined ? {} : { client_secret: secret }) };
  const state = randomToken();
  const redirectUrl = `${origin}${SIGN_IN_CALLBACK_PATH}`;
  try {
    // Loaded at the first connection, not at start-up, as the MCP sign-in's flow is.
    const { startAuthorization } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const { authorizationUrl, codeVerifier } = await startAuthorization(metadata.issuer, {
      metadata,
      clientInformation: client,
      redirectUrl,
      state,
      ...(endpoints.scope === undefined ? {} : { scope: endpoints.scope }),
    });
    const pending: PendingSignIn = {
      authorizationServerUrl: metadata.issuer,
      metadata,
      client,
      ...(endpoints.scope === undefined ? {} : { scope: endpoints.scope }),
      codeVerifier,
      redirectUrl,
    };
    const now = Date.now();
    const flow = { server: sourceUpstream(source), keyId: principal, connectFor: principal, createdAt: now, authorizationUrl: authorizationUrl.href };
    await writeFlow(env.KV, key.key, state, flow, pending);
    return { ok: true, signInUrl: `${origin}${CONNECT_PATH}/${state}`, expiresAt: now + SIGN_IN_FLOW_TTL_SECONDS * 1000 };
  } catch (error) {
    return { ok: false, reason: "discovery_failed", detail: `connecting to API '${source}' failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The caller's own token source at `source`; throws CONNECTION_REQUIRED (with a link) when there is none to use. */
export async function sourceUserAuth(source: string, ctx: ToolContext, link: ConnectLink): Promise<UserAuth> {
  return perUserAuth({ name: sourceUpstream(source) }, ctx.toolName, ctx, link);
}

/** The `Authorization` header of the caller's own token now (refreshed first when due); CONNECTION_REQUIRED when it cannot be had. */
export async function ownAuthorization(source: string, own: UserAuth, ctx: ToolContext, link: ConnectLink): Promise<string> {
  const header = await own.authorization(ctx.signal);
  if (header !== undefined) return header;
  throw await connectionRequired({ name: sourceUpstream(source) }, ctx.toolName, ctx, link, own.refused ?? "your token expired and could not be renewed");
}

/**
 * After the API answered 401 to the caller's own token: a new token when a refresh gets one (the
 * caller repeats the request once, which the API did not act on), else CONNECTION_REQUIRED, the
 * refusal recorded on the connection so the person is asked to reconnect, never a 5xx.
 */
export async function renewAfter401(source: string, own: UserAuth, ctx: ToolContext, link: ConnectLink): Promise<string> {
  const renewed = await own.renew(new McpClientError("unauthorized", "the API answered HTTP 401", 401), ctx.signal);
  if (renewed) return ownAuthorization(source, own, ctx, link);
  throw await connectionRequired({ name: sourceUpstream(source) }, ctx.toolName, ctx, link, own.refused ?? "the API refused your token (HTTP 401)");
}
