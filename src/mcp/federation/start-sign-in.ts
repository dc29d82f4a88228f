/**
 * Starting toolgate's OAuth sign-in at a remote MCP server, for an admin: probe the server for
 * its challenge, discover and register (src/mcp/client/oauth/sign-in-flow.ts), keep the PKCE
 * verifier sealed in KV under the OAuth `state`, and hand back the link a person opens in a
 * browser. The link opens once; the callback accepts only the browser that opened it.
 */
import { randomToken } from "../../approvals-page/random-token.ts";
import { loadConfig } from "../../config/config.ts";
import type { McpSignInFailure } from "../../http/request-failure.ts";
import { fetchOutbound } from "../../net/outbound-url.ts";
import { secretValue } from "../../net/secret-headers.ts";
import { readChallenge } from "../client/http-error.ts";
import type { AuthChallenge } from "../client/json-rpc.ts";
import { createOAuthFetch } from "../client/oauth/oauth-fetch.ts";
import { LATEST_PROTOCOL_VERSION } from "../server/protocol-versions.ts";
import { SIGN_IN_FLOW_TTL_SECONDS, tokenKey, writeFlow } from "./oauth-store.ts";
import { loadSignIn } from "./server-auth.ts";
import type { ServerState } from "./server-state.ts";

/** Paths of the public sign-in routes (src/mcp/federation/sign-in-routes.ts). */
export const SIGN_IN_START_PATH = "/mcp-oauth/start";
export const SIGN_IN_CALLBACK_PATH = "/mcp-oauth/callback";
export const CLIENT_METADATA_PATH = "/mcp-oauth/client-metadata.json";
/**
 * Where a per-user connection link opens: under the chat site, whose sign-in (any key) says who
 * the browser is, so a link opens only for the principal it was made for.
 */
export const CONNECT_PATH = "/chat/connect";

export type SignInStart = { ok: true; signInUrl: string; expiresAt: number } | { ok: false; reason: McpSignInFailure; detail: string };

/**
 * Prepares a sign-in at the server for the admin `keyId`; `origin` is toolgate's own, where the
 * authorization server sends the browser back. With `connectFor`, a per-user connection for that
 * principal instead, whose link is the chat site's connect page.
 */
export async function startSignIn(env: Env, state: ServerState, keyId: string, origin: string, connectFor?: string): Promise<SignInStart> {
  const key = tokenKey(env);
  if (!key.ok) return { ok: false, reason: "not_configured", detail: key.message };
  const { config } = state;
  const allow = loadConfig(env).outboundAllow;
  const fetch = createOAuthFetch(allow);
  const oauthState = randomToken();
  const previous = (await loadSignIn(env, config.name, Date.now()))?.grant;
  const secretName = config.oauth?.client_secret?.secret;
  const clientSecret = secretName === undefined ? undefined : secretValue(env, secretName);
  try {
    // The flow (and the SDK client auth it is built on) loads at the first sign-in, not at start-up.
    const { beginSignIn } = await import("../client/oauth/sign-in-flow.ts");
    const { authorizationUrl, pending } = await beginSignIn({
      serverUrl: config.url,
      ...(await probe(config.url, allow).then((challenge) => (challenge === undefined ? {} : { challenge }))),
      redirectUrl: `${origin}${SIGN_IN_CALLBACK_PATH}`,
      state: oauthState,
      clientName: `toolgate (${new URL(origin).host})`,
      ...(config.oauth?.client_id === undefined
        ? {}
        : { preRegistered: { client_id: config.oauth.client_id, ...(clientSecret === undefined ? {} : { client_secret: clientSecret }) } }),
      // A client ID metadata document must be fetchable by the authorization server over HTTPS.
      ...(origin.startsWith("https://") ? { clientMetadataUrl: `${origin}${CLIENT_METADATA_PATH}` } : {}),
      ...(config.oauth?.scope === undefined ? {} : { scope: config.oauth.scope }),
      ...(previous === undefined ? {} : { previousClient: { authorizationServerUrl: previous.authorizationServerUrl, client: previous.client } }),
      fetch,
    });
    const now = Date.now();
    await writeFlow(
      env.KV,
      key.key,
      oauthState,
      { server: config.name, keyId, createdAt: now, authorizationUrl, ...(connectFor === undefined ? {} : { connectFor }) },
      pending,
    );
    const link = connectFor === undefined ? `${origin}${SIGN_IN_START_PATH}?state=${encodeURIComponent(oauthState)}` : `${origin}${CONNECT_PATH}/${oauthState}`;
    return { ok: true, signInUrl: link, expiresAt: now + SIGN_IN_FLOW_TTL_SECONDS * 1000 };
  } catch (error) {
    return {
      ok: false,
      reason: "discovery_failed",
      detail: `signing in to MCP server '${config.name}' failed at ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/**
 * The server's answer to an unauthenticated initialize: its `WWW-Authenticate` challenge when it
 * refuses (401, or 403 with a challenge), else undefined (discovery then uses the well-known paths).
 */
async function probe(url: string, allow: readonly string[]): Promise<AuthChallenge | undefined> {
  try {
    const response = await fetchOutbound(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "toolgate", version: "0.1.0" } },
        }),
        signal: AbortSignal.timeout(10_000),
      },
      allow,
    );
    await response.body?.cancel();
    return response.status === 401 || response.status === 403 ? await readChallenge(response) : undefined;
  } catch {
    return undefined;
  }
}
