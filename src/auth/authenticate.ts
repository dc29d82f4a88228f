/**
 * Bearer authentication for `/v1/*`: resolves `Authorization: Bearer <key>` to a `Principal`
 * and sets it as `c.get("principal")`, or answers 401 with `WWW-Authenticate: Bearer`.
 *
 * The key is checked by verify-key.ts (the `ADMIN_TOKEN` secret, or an API key in D1 by its
 * digest) through the isolate cache (key-cache.ts: revocation elsewhere takes effect within its
 * 10 s TTL).
 */
import type { Context, MiddlewareHandler } from "hono";
import { failureResponse, type RequestFailure } from "../http/request-failure.ts";
import type { AuthEnv } from "./auth-env.ts";
import { type KeyCache, keyCache as sharedCache } from "./key-cache.ts";
import { verifyKey } from "./verify-key.ts";

export interface AuthenticateOptions {
  /** Defaults to the isolate's shared cache, which key revocation also clears. */
  cache?: KeyCache;
  /** How a 401 is answered; the MCP door wraps it in a JSON-RPC error. */
  respond?: (c: Context, failure: RequestFailure) => Response;
}

// RFC 7235: the scheme is case-insensitive; RFC 6750 b64token is the token's alphabet.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

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

    const verdict = await verifyKey(c.env, token, { cache });
    if (!verdict.ok) {
      return respond(
        c,
        verdict.reason === "revoked_key"
          ? { kind: "unauthenticated", reason: verdict.reason, revokedAt: verdict.revokedAt }
          : { kind: "unauthenticated", reason: verdict.reason },
      );
    }
    c.set("principal", verdict.principal);
    return next();
  };
}
