/**
 * The token source of one call to a `token_exchange` server (RFC 8693): the caller's own
 * toolgate OAuth access token exchanged at the server's authorization server for a token meant
 * for that server alone, and sent in place of toolgate's. A caller without one (an API key) is
 * refused before anything is sent.
 *
 * The exchanged token is kept per principal in the isolate (ServerState.exchange) until
 * EXPIRY_MARGIN_MS before its expiry, never past it; one that names no expiry is used for its
 * own call only. Revoking the caller's grant needs no eviction: the MCP door refuses its token
 * before any call reaches here.
 */
import { loadConfig } from "../../config/config.ts";
import { type TokenExchangeProblem, ToolFailureError } from "../../errors/tool-failure.ts";
import { secretValue } from "../../net/secret-headers.ts";
import type { ToolContext } from "../../registry/types.ts";
import type { McpAuth } from "../client/mcp-target.ts";
import { createOAuthFetch } from "../client/oauth/oauth-fetch.ts";
import { EXPIRY_MARGIN_MS } from "../client/oauth/oauth-grant.ts";
import type { ExchangedToken, ExchangeTarget } from "../client/oauth/token-exchange.ts";
import type { ServerState } from "./server-state.ts";

/** How long a discovered token endpoint is used before it is looked up again. */
const TARGET_RELOAD_MS = 10 * 60_000;
/** Principals whose tokens one server keeps per isolate; past it the oldest is dropped. */
const MAX_KEPT_TOKENS = 1000;

/** A token source for the call, with the exchange's failure when a renewal after a 401 found no token. */
export interface ExchangeAuth extends McpAuth {
  readonly renewFailure: ToolFailureError | undefined;
}

/**
 * The caller's exchanged token at the server, from the isolate's cache or a new exchange.
 * Throws ToolFailureError (`token_exchange_failed`) when there is none to send.
 */
export async function exchangeAuth(state: ServerState, ctx: ToolContext, name: string, now: () => number): Promise<ExchangeAuth> {
  const server = state.config.name;
  const fail = (problem: TokenExchangeProblem, detail: string, oauthError?: string): ToolFailureError =>
    new ToolFailureError({ kind: "token_exchange_failed", name, server, problem, detail, oauthError });
  const subjectToken = ctx.callerToken;
  if (subjectToken === undefined) {
    throw fail(
      "no_oauth_sign_in",
      "it was made with an API key (or runs later by itself, as an approved call does), and only an MCP client's OAuth sign-in to toolgate can be exchanged",
    );
  }
  const options = state.config.token_exchange;
  if (options === undefined) throw fail("not_configured", "its configuration has no token_exchange block naming toolgate's client at the authorization server");
  const clientSecret = secretValue(ctx.env, options.client_secret.secret);
  if (clientSecret === undefined) throw fail("not_configured", `the secret ${options.client_secret.secret} (toolgate's client secret there) is not set`);

  const { exchange } = state;
  const principal = ctx.keyId;
  const exchangeNew = async (signal: AbortSignal): Promise<ExchangedToken> => {
    // Like the sign-in flow it reuses, loaded at the first exchange, not at start-up.
    const { discoverExchangeTarget, exchangeToken, ExchangeError } = await import("../client/oauth/token-exchange.ts");
    const fetch = createOAuthFetch(loadConfig(ctx.env).outboundAllow, signal);
    try {
      const target = await currentTarget(state, now, () => discoverExchangeTarget(state.config.url, options.token_endpoint, fetch));
      const token = await exchangeToken(
        target,
        { subjectToken, clientId: options.client_id, clientSecret, audience: options.audience, scope: options.scope },
        fetch,
        now(),
      );
      keep(exchange.tokens, principal, token);
      return token;
    } catch (error) {
      // The endpoint may have moved or been misread: the next exchange looks it up again.
      exchange.target = undefined;
      if (error instanceof ExchangeError) throw fail(error.problem, error.message, error.oauthError);
      throw fail("unreachable", error instanceof Error ? error.message : String(error));
    }
  };

  const kept = exchange.tokens.get(principal);
  let token = kept !== undefined && usable(kept, now()) ? kept : await exchangeNew(ctx.signal);
  let renewed = false;
  let renewFailure: ToolFailureError | undefined;
  return {
    get renewFailure() {
      return renewFailure;
    },
    async authorization() {
      return `Bearer ${token.accessToken}`;
    },
    async renew(_error, signal) {
      // The server refused the token (revoked upstream, or the cache outlived it there): one new exchange per call.
      exchange.tokens.delete(principal);
      if (renewed) return false;
      renewed = true;
      try {
        token = await exchangeNew(signal);
        return true;
      } catch (error) {
        if (error instanceof ToolFailureError) renewFailure = error;
        return false;
      }
    },
  };
}

const usable = (token: ExchangedToken, now: number): boolean => token.expiresAt !== undefined && now < token.expiresAt - EXPIRY_MARGIN_MS;

function keep(tokens: Map<string, ExchangedToken>, principal: string, token: ExchangedToken): void {
  if (token.expiresAt === undefined) return;
  tokens.delete(principal);
  if (tokens.size >= MAX_KEPT_TOKENS) {
    const oldest = tokens.keys().next();
    if (oldest.done !== true) tokens.delete(oldest.value);
  }
  tokens.set(principal, token);
}

async function currentTarget(state: ServerState, now: () => number, discover: () => Promise<ExchangeTarget>): Promise<ExchangeTarget> {
  const known = state.exchange.target;
  if (known !== undefined && now() - known.foundAt < TARGET_RELOAD_MS) return known.value;
  const value = await discover();
  state.exchange.target = { value, foundAt: now() };
  return value;
}
