/**
 * `GET /.well-known/jwks.json`: the public keys that verify toolgate's identity tokens (RFC 7517
 * key set), every configured key so a rotation never strands tokens signed a moment before it.
 * Public and unauthenticated, like any JWKS: it holds nothing secret.
 */
import { Hono } from "hono";
import { loadSigningKeys } from "../crypto/es256.ts";
import { secretValue } from "../net/secret-headers.ts";
import { IDENTITY_KEY_SECRET } from "./identity-option.ts";

export const JWKS_PATH = "/.well-known/jwks.json";

/** How long verifiers may cache the set: short, so a new key is picked up soon after rotation. */
const JWKS_MAX_AGE_SECONDS = 300;

export const jwksRoutes = new Hono<{ Bindings: Env }>().get(JWKS_PATH, async function jwks(c) {
  const secret = secretValue(c.env, IDENTITY_KEY_SECRET);
  const loaded = secret === undefined ? undefined : await loadSigningKeys(secret);
  // A malformed secret publishes nothing rather than failing: identity calls name the problem.
  c.header("cache-control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return c.json({ keys: loaded?.ok === true ? loaded.keys.published : [] });
});
