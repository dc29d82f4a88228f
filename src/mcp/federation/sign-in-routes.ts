/**
 * The browser's side of toolgate's sign-in at a remote MCP server. Public routes: the person
 * holds no toolgate key in the browser, so what ties the steps together is the OAuth `state`
 * (256 random bits an admin's POST /v1/mcp-servers/{name}/sign-in created, one-time, 10 minutes)
 * and a nonce cookie set when the sign-in link is opened, which the callback must present: a
 * callback replayed in another browser, or a forged one, is refused (login CSRF, RFC 6749
 * section 10.12), and PKCE binds the code to the verifier only toolgate holds.
 *
 *   GET /mcp-oauth/start?state=         sets the cookie (once) and redirects to the authorization server
 *   GET /mcp-oauth/callback?code=&state=  exchanges the code, stores the tokens sealed, lists the tools
 *   GET /mcp-oauth/client-metadata.json   toolgate's client ID metadata document (for servers that take one)
 */
import { type Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../../approvals-page/random-token.ts";
import { loadConfig } from "../../config/config.ts";
import { sha256Hex } from "../../crypto/sha256.ts";
import { failureResponse } from "../../http/request-failure.ts";
import { requestOrigin } from "../../http/request-origin.ts";
import { createOAuthFetch } from "../client/oauth/oauth-fetch.ts";
import { connectedPage } from "./connections/connected-page.ts";
import { writeConnection } from "./connections/connection-store.ts";
import { describeUpstream } from "./connections/upstream.ts";
import { federation } from "./federation.ts";
import { deleteFlow, openPending, readFlow, SIGN_IN_FLOW_TTL_SECONDS, type StoredSignInFlow, tokenKey, updateFlow, writeSignIn } from "./oauth-store.ts";
import { CLIENT_METADATA_PATH, CONNECT_PATH, SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH } from "./start-sign-in.ts";

/**
 * One cookie per sign-in, so two sign-ins at once in one browser do not overwrite each other.
 * Hono adds the `__Host-` prefix (`prefix: "host"`), which pins it to this host over HTTPS.
 */
const cookieName = (state: string): string => `toolgate-mcp-${sha256Hex(state).slice(0, 16)}`;

/** Of the callback's `error` and `error_description`, at most this much is repeated in the answer. */
const MAX_ECHOED_CHARS = 300;

export const signInRoutes = new Hono<{ Bindings: Env }>();

signInRoutes
  .get(SIGN_IN_START_PATH, async function openSignInLink(c) {
    const state = c.req.query("state") ?? "";
    const flow = state === "" ? null : await readFlow(c.env.KV, state);
    if (flow === null)
      return failureResponse(c, { kind: "mcp_sign_in_failed", reason: "unknown_state", detail: "This sign-in link is unknown or has expired." });
    // A connection's link says whose it is only where the browser's sign-in is known.
    if (flow.connectFor !== undefined)
      return failureResponse(c, {
        kind: "mcp_sign_in_failed",
        reason: "wrong_principal",
        detail: `This is a per-user connection link: open it as it was given (${CONNECT_PATH}/<state>), signed in to the chat page with your key.`,
      });
    return openFlowLink(c, state, flow);
  })
  .get(SIGN_IN_CALLBACK_PATH, async function finishSignInCallback(c) {
    const { state = "", code, error, error_description: description } = c.req.query();
    c.header("cache-control", "no-store");
    const flow = state === "" ? null : await readFlow(c.env.KV, state);
    if (flow === null)
      return failureResponse(c, {
        kind: "mcp_sign_in_failed",
        reason: "unknown_state",
        detail: "The callback's state matches no sign-in under way (it is unknown, was used, or expired).",
      });
    const nonce = getCookie(c, cookieName(state), "host");
    if (flow.browserNonceSha256 === undefined || nonce === undefined || sha256Hex(nonce) !== flow.browserNonceSha256) {
      return failureResponse(c, {
        kind: "mcp_sign_in_failed",
        reason: "browser_mismatch",
        detail: "This callback did not come from the browser that opened the sign-in link.",
      });
    }
    // Whatever happens next, the state is spent.
    await deleteFlow(c.env.KV, state);
    if (error !== undefined) {
      // Both come from the callback's URL, which anyone can write: echo a bounded part of each.
      const answered = `${error.slice(0, MAX_ECHOED_CHARS)}${description === undefined ? "" : `: ${description.slice(0, MAX_ECHOED_CHARS)}`}`;
      return failureResponse(c, {
        kind: "mcp_sign_in_failed",
        reason: "denied",
        detail: `The authorization server of ${describeUpstream(flow.server).label} answered ${answered}.`,
      });
    }
    if (code === undefined || code === "")
      return failureResponse(c, { kind: "mcp_sign_in_failed", reason: "missing_code", detail: "The callback carries neither a code nor an error." });
    return exchange(c, state, code, flow);
  })
  .get(CLIENT_METADATA_PATH, function clientMetadata(c) {
    const origin = requestOrigin(c.req.url);
    return c.json({
      client_id: `${origin}${CLIENT_METADATA_PATH}`,
      client_name: `toolgate (${new URL(origin).host})`,
      redirect_uris: [`${origin}${SIGN_IN_CALLBACK_PATH}`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
  });

/**
 * Opens a sign-in or connection link once: records the SHA-256 of a nonce the browser gets as a
 * cookie (which the callback must present) and sends the browser to the authorization server.
 */
export async function openFlowLink<E extends { Bindings: Env }>(c: Context<E>, state: string, flow: StoredSignInFlow): Promise<Response> {
  if (flow.browserNonceSha256 !== undefined)
    return failureResponse(c, {
      kind: "mcp_sign_in_failed",
      reason: "link_used",
      detail: `This sign-in link to ${describeUpstream(flow.server).label} was already opened.`,
    });
  const nonce = randomToken();
  await updateFlow(c.env.KV, state, { ...flow, browserNonceSha256: sha256Hex(nonce) });
  // Lax, not Strict: the callback is a top-level navigation coming from the authorization server's site.
  setCookie(c, cookieName(state), nonce, { path: "/", secure: true, httpOnly: true, sameSite: "Lax", maxAge: SIGN_IN_FLOW_TTL_SECONDS, prefix: "host" });
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  return c.redirect(flow.authorizationUrl, 302);
}

/** Exchanges the code with the sign-in's verifier, stores the grant as the admin's, and lists the server's tools. */
async function exchange(c: Context<{ Bindings: Env }>, state: string, code: string, flow: StoredSignInFlow) {
  const { server, keyId } = flow;
  const key = tokenKey(c.env);
  if (!key.ok) return failureResponse(c, { kind: "mcp_sign_in_failed", reason: "not_configured", detail: key.message });
  const pending = await openPending(key.key, state, flow);
  if (pending === undefined)
    return failureResponse(c, {
      kind: "mcp_sign_in_failed",
      reason: "unknown_state",
      detail: "The sign-in's stored verifier does not open under the current MCP_TOKEN_KEY (was the key changed?).",
    });
  let grant;
  try {
    const { finishSignIn } = await import("../client/oauth/sign-in-flow.ts");
    grant = await finishSignIn(pending, code, createOAuthFetch(loadConfig(c.env).outboundAllow), Date.now());
  } catch (error) {
    return failureResponse(c, {
      kind: "mcp_sign_in_failed",
      reason: "exchange_failed",
      detail: `${describeUpstream(server).label}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const now = Date.now();
  if (flow.connectFor !== undefined) {
    await writeConnection(c.env.DB, key.key, flow.connectFor, server, grant, now);
    return connectedPage(c, server);
  }
  await writeSignIn(c.env.KV, key.key, server, grant, { status: "signed_in", signedInBy: keyId, signedInAt: now, updatedAt: now });
  const refreshed = await federation.refresh(c.env, server);
  return c.json({
    server,
    status: "signed_in",
    signed_in_by: keyId,
    expires_at: grant.expiresAt === undefined ? null : new Date(grant.expiresAt).toISOString(),
    tools: refreshed?.status.tools.map((tool) => tool.name) ?? [],
    last_error: refreshed?.error ?? null,
  });
}
