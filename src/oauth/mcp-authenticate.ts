/**
 * Authentication of the MCP doors: an API key, exactly as before (authenticate.ts), or an OAuth
 * access token issued for this door. A token is `<grant id>:<grant>:<secret>` (the provider's
 * shape), which no API key or ADMIN_TOKEN can be (RFC 6750's b64token has no colon), so the
 * shape alone picks the check and a key never reaches the token store or the other way round.
 *
 * A token resolves to its grant's principal (role agent, the toolsets picked on the consent
 * page), read from D1 so a revoked grant is refused even while KV still holds its tokens. Like a
 * key, a good lookup is cached per isolate (key-cache.ts), for this token at this door only and
 * never past the token's expiry; revoking the grant drops it from the revoking isolate at once.
 */
import type { Context, MiddlewareHandler, Next } from "hono";
import { authenticate } from "../auth/authenticate.ts";
import { type KeyCache, keyCache as sharedCache } from "../auth/key-cache.ts";
import { hashApiKey } from "../auth/key-hash.ts";
import { getApiKey, principalOf } from "../auth/key-store.ts";
import { requestOrigin } from "../http/request-origin.ts";
import type { AppEnv } from "../http/types.ts";
import { rpcFailureResponse } from "../mcp/http/rpc-failure-response.ts";
import { invalidTokenResponse, withBearerChallenge } from "./bearer-challenge.ts";
import { mcpResourceAt } from "./oauth-paths.ts";

export interface McpAuthenticateOptions {
  cache?: KeyCache;
}

// Three colon-separated parts of the provider's random-string alphabet.
const OAUTH_BEARER = /^Bearer +([A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+) *$/i;

/**
 * Requires an API key or an OAuth access token for this door on every request it guards.
 *
 * @example
 * ```ts
 * app.post("/mcp/:toolset", mcpAuthenticate(), serve);
 * ```
 */
export function mcpAuthenticate({ cache = sharedCache }: McpAuthenticateOptions = {}): MiddlewareHandler<AppEnv> {
  const apiKey = authenticate({
    cache,
    respond: (c, failure) => withBearerChallenge(rpcFailureResponse(failure), c.req.url, failure.kind === "unauthenticated" && failure.reason !== "missing"),
  });
  // Not async itself: an API key (every request, nearly) goes straight on, without a promise of this frame's own.
  return function mcpAuthenticate(c, next) {
    const authorization = c.req.raw.headers.get("authorization") ?? "";
    // Only a token has a colon, so an API key skips the pattern.
    const token = authorization.includes(":") ? OAUTH_BEARER.exec(authorization)?.[1] : undefined;
    return token === undefined ? apiKey(c, next) : withToken(c, next, token);
  };

  async function withToken(c: Context<AppEnv>, next: Next, token: string): Promise<Response | void> {
    const origin = requestOrigin(c.req.url);
    const door = mcpResourceAt(origin, c.req.path);
    if (door === undefined) return invalidTokenResponse(c.req.url, "no MCP door has this path");
    // Per door: the same token is a different question at another door.
    const cacheKey = `oauth ${door.resource} ${hashApiKey(token)}`;
    const cached = cache.get(cacheKey);
    if (cached !== undefined) {
      c.set("principal", cached);
      c.set("oauthToken", token);
      return next();
    }
    // The OAuth provider library is imported by the first OAuth token, not at start-up: most
    // isolates only ever see API keys, and every cold one would pay for evaluating it.
    const { authorizationServer } = await import("./authorization-server.ts");
    const validated = await authorizationServer(origin, [door.resource]).validateToken(door.resource, token, c.env);
    if (validated === null) return invalidTokenResponse(c.req.url, "it is unknown, expired or revoked, or was issued for another MCP door");
    const grant = await getApiKey(c.env.DB, validated.userId);
    if (grant === undefined || grant.kind !== "oauth_grant") return invalidTokenResponse(c.req.url, "its grant no longer exists");
    if (grant.revokedAt !== null) return invalidTokenResponse(c.req.url, `its grant was revoked at ${grant.revokedAt}`);
    const principal = principalOf(grant);
    cache.set(cacheKey, principal, validated.expiresAt * 1000);
    c.set("principal", principal);
    c.set("oauthToken", token);
    return next();
  }
}
