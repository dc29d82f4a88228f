/**
 * Bearer authentication for `/v1/*`: resolves `Authorization: Bearer <key>` to a `Principal`
 * and sets it as `c.get("principal")`, or answers 401 with `WWW-Authenticate: Bearer`.
 *
 * A key is either the `ADMIN_TOKEN` secret or an API key in D1, found by its SHA-256 digest
 * (see key-hash.ts for why that digest) through the isolate cache (key-cache.ts: revocation
 * elsewhere takes effect within its 10 s TTL).
 */
import type { Context, MiddlewareHandler } from "hono";
import { failureResponse, type RequestFailure } from "../http/request-failure.ts";
import { isAdminTokenDigest, ADMIN_TOKEN_PRINCIPAL } from "./admin-token.ts";
import type { AuthEnv } from "./auth-env.ts";
import { keyCache as sharedCache, type KeyCache } from "./key-cache.ts";
import { digestsEqual, hashApiKey } from "./key-hash.ts";
import { findApiKeyByHash, principalOf } from "./key-store.ts";

export interface AuthenticateOptions {
  /** Defaults to the isolate's shared cache, which key revocation also clears. */
  cache?: KeyCache;
  /** How a 401 is answered; the MCP door wraps it in a JSON-RPC error. */
  respond?: (c: Context, failure: RequestFailure) => Response;
}

// RFC 7235: the scheme is case-insensitive; RFC 6750 b64token is the token's alphabet.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

// ADMIN_TOKEN is a secret, declared in src/secrets.d.ts (wrangler types cannot see secrets).
const adminTokenOf = (env: Env): string | undefined => env.ADMIN_TOKEN;

/**
 * Requires a valid key on every request it guards.
 *
 * @example
 * ```ts
 * app.use("/v1/*", authenticate());
 * app.route("/", keysRoutes);
 * ```
 */
export function authenticate({ cache = sharedCache, respond = failureResponse }: AuthenticateOptions = {}): MiddlewareHandler<AuthEnv> {
  return async function authenticate(c, next) {
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") return respond(c, { kind: "unauthenticated", reason: "missing" });
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) return respond(c, { kind: "unauthenticated", reason: "malformed" });

    const digest = await hashApiKey(token);
    if (await isAdminTokenDigest(digest, adminTokenOf(c.env))) {
      c.set("principal", ADMIN_TOKEN_PRINCIPAL);
      return next();
    }
    const cached = cache.get(digest);
    if (cached !== undefined) {
      c.set("principal", cached);
      return next();
    }
    const found = await findApiKeyByHash(c.env.DB, digest);
    if (found === undefined || !digestsEqual(found.keyHash, digest)) return respond(c, { kind: "unauthenticated", reason: "unknown_key" });
    if (found.record.revokedAt !== null) return respond(c, { kind: "unauthenticated", reason: "revoked_key", revokedAt: found.record.revokedAt });
    const principal = principalOf(found.record);
    cache.set(digest, principal);
    c.set("principal", principal);
    return next();
  };
}
