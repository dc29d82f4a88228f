/**
 * The credentials one call of an OpenAPI source carries, read from secrets when the call is
 * sent: a bearer token, an API key (header or query), HTTP basic, or an OAuth 2 client
 * credentials token (RFC 6749 §4.4) fetched from the source's token URL.
 *
 * An OAuth token is kept in this isolate's memory until shortly before it expires, so a burst
 * of calls costs one token request; concurrent calls share that request. It is never stored:
 * an isolate that starts fetches its own. The token URL passes the SSRF guard like every call.
 */
import { ToolFailureError } from "../errors/tool-failure.ts";
import { checkOutboundUrl } from "../net/outbound-url.ts";
import { readTextCapped } from "../net/read-capped.ts";
import { secretValue } from "../net/secret-headers.ts";
import type { ToolContext } from "../registry/types.ts";
import type { SourceAuth } from "./source-config.ts";

/** Where the credentials go on one request. */
export interface AuthParts {
  headers: Record<string, string>;
  /** Query parameters (an API key `in: query`), appended already encoded. */
  query: string[];
  /** The credential values, for scrubbing from what the API echoes back. */
  secrets: string[];
}

/** A token is renewed this long before the expiry the server gave, so a call never carries one that expires in flight. */
const EXPIRY_MARGIN_MS = 30_000;
/** How long a token whose server gave no `expires_in` is kept. */
const DEFAULT_TOKEN_LIFETIME_MS = 300_000;
/** A token response is a few hundred bytes; anything past this is not one. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** The env var names a source's auth reads: its tools are unavailable until all are set. */
export function authSecretNames(auth: SourceAuth): string[] {
  switch (auth.type) {
    case "none":
      return [];
    case "bearer":
      return [auth.token.secret];
    case "api_key":
      return [auth.value.secret];
    case "basic":
      return [auth.username.secret, auth.password.secret];
    case "oauth2_client_credentials":
      return [auth.client_id.secret, auth.client_secret.secret];
    case "per_user":
      return auth.client_secret === undefined ? [] : [auth.client_secret.secret];
  }
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** OAuth tokens by source, token URL, client and scope; the secret is part of the key, so a rotated secret fetches anew. */
export class TokenCache {
  readonly #tokens = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<CachedToken>>();
  readonly #now: () => number;

  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
  }

  /** A live token for `key`, fetching one with `fetchToken` when none is kept. */
  async get(key: string, fetchToken: () => Promise<CachedToken>): Promise<string> {
    const kept = this.#tokens.get(key);
    if (kept !== undefined && kept.expiresAt > this.#now()) return kept.token;
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = fetchToken().finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    const fresh = await pending;
    this.#tokens.set(key, fresh);
    return fresh.token;
  }

  /** Forgets a token the API refused (401), so the next call fetches another. */
  drop(key: string): void {
    this.#tokens.delete(key);
  }

  expiryFor(expiresInSeconds: unknown): number {
    const lifetime = typeof expiresInSeconds === "number" && expiresInSeconds > 0 ? expiresInSeconds * 1000 : DEFAULT_TOKEN_LIFETIME_MS;
    return this.#now() + Math.max(0, lifetime - EXPIRY_MARGIN_MS);
  }
}

/** The isolate's token cache (built once per isolate, like the breakers). */
export const oauthTokens = new TokenCache();

/** The secret's value; the tool is unavailable without it (requiresEnv), so this only fails if it was unset since. */
function secret(ctx: Pick<ToolContext, "env" | "toolName">, name: string): string {
  const value = secretValue(ctx.env, name);
  if (value === undefined) throw new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason: `missing required environment variable: ${name}` });
  return value;
}

/** The key a source's OAuth token is kept under (exported so a 401 can drop it). */
export function oauthCacheKey(source: string, auth: Extract<SourceAuth, { type: "oauth2_client_credentials" }>, env: Env): string {
  const id = secretValue(env, auth.client_id.secret) ?? "";
  const key = secretValue(env, auth.client_secret.secret) ?? "";
  return JSON.stringify([source, auth.token_url, auth.scope ?? "", id, key]);
}

async function fetchToken(
  source: string,
  auth: Extract<SourceAuth, { type: "oauth2_client_credentials" }>,
  ctx: Pick<ToolContext, "env" | "fetch" | "toolName">,
  allow: readonly string[],
  tokens: TokenCache,
): Promise<CachedToken> {
  const unavailable = (reason: string): ToolFailureError =>
    new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason: `source '${source}' could not get an OAuth token: ${reason}` });
  const target = checkOutboundUrl(auth.token_url, allow);
  if (!target.ok) throw unavailable(`its token URL is refused (${target.reason})`);
  const id = secret(ctx, auth.client_id.secret);
  const key = secret(ctx, auth.client_secret.secret);
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (auth.scope !== undefined) form.set("scope", auth.scope);
  // RFC 6749 §2.3.1: the client authenticates with HTTP basic, its id and secret form-encoded first.
  const basic = btoa(`${encodeURIComponent(id)}:${encodeURIComponent(key)}`);
  // Not redirected: a token endpoint that bounces a request carrying the client's secret is refused, not followed.
  const response = await ctx.fetch(target.url.href, {
    method: "POST",
    redirect: "manual",
    headers: { authorization: `Basic ${basic}`, accept: "application/json" },
    body: form,
  });
  const { text } = await readTextCapped(response, MAX_TOKEN_RESPONSE_BYTES);
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Reported below with the status.
  }
  if (!response.ok || typeof body.access_token !== "string" || body.access_token === "") {
    const why = [body.error, body.error_description].filter((part) => typeof part === "string").join(": ") || text.slice(0, 200);
    throw unavailable(`the token endpoint answered HTTP ${response.status}${why === "" ? "" : ` (${why})`}; check the client id and secret`);
  }
  return { token: body.access_token, expiresAt: tokens.expiryFor(body.expires_in) };
}

/** The credentials for one call of `source`'s tool `ctx.toolName`. */
export async function authFor(
  source: string,
  auth: SourceAuth,
  ctx: Pick<ToolContext, "env" | "fetch" | "toolName">,
  allow: readonly string[],
  tokens: TokenCache,
): Promise<AuthParts> {
  switch (auth.type) {
    case "none":
      return { headers: {}, query: [], secrets: [] };
    case "bearer": {
      const token = secret(ctx, auth.token.secret);
      return { headers: { authorization: `Bearer ${token}` }, query: [], secrets: [token] };
    }
    case "api_key": {
      const value = secret(ctx, auth.value.secret);
      if (auth.in === "header") return { headers: { [auth.name]: value }, query: [], secrets: [value] };
      return { headers: {}, query: [`${encodeURIComponent(auth.name)}=${encodeURIComponent(value)}`], secrets: [value] };
    }
    case "basic": {
      const user = secret(ctx, auth.username.secret);
      const password = secret(ctx, auth.password.secret);
      const encoded = btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)));
      return { headers: { authorization: `Basic ${encoded}` }, query: [], secrets: [password, encoded] };
    }
    case "per_user":
      // The caller's own token, from their connection (source-connection.ts), not a deployment secret.
      return { headers: {}, query: [], secrets: [] };
    case "oauth2_client_credentials": {
      const token = await tokens.get(oauthCacheKey(source, auth, ctx.env), () => fetchToken(source, auth, ctx, allow, tokens));
      return { headers: { authorization: `Bearer ${token}` }, query: [], secrets: [token] };
    }
  }
}
