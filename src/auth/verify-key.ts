/**
 * The one check behind every way of presenting a key: the bearer header of `/v1` routes and the
 * approvals page's sign-in and session. A key is either the `ADMIN_TOKEN` secret or an API key in
 * D1, found by its SHA-256 digest (see key-hash.ts for why that digest).
 */
import { ADMIN_TOKEN_PRINCIPAL, isAdminTokenDigest } from "./admin-token.ts";
import type { KeyCache } from "./key-cache.ts";
import { digestsEqual, hashApiKey } from "./key-hash.ts";
import { findApiKeyByHash, principalOf } from "./key-store.ts";
import type { Principal } from "./principal.ts";

export type KeyVerdict =
  | { ok: true; principal: Principal; digest: string }
  | { ok: false; reason: "unknown_key" }
  | { ok: false; reason: "revoked_key"; revokedAt: string };

export interface VerifyKeyOptions {
  /**
   * Successful lookups to trust for the cache's TTL (key-cache.ts). Without one, D1 is asked every
   * time, so a revocation made anywhere takes effect at once.
   */
  cache?: KeyCache;
}

// ADMIN_TOKEN is a secret, declared in src/secrets.d.ts (wrangler types cannot see secrets).
const adminTokenOf = (env: Env): string | undefined => env.ADMIN_TOKEN;

/**
 * Who a key's digest authenticates as. Taking the digest (not the key) lets a stored session
 * re-check its key on every request without ever holding the key itself.
 *
 * @example
 * ```ts
 * const verdict = await verifyKeyDigest(env, hashApiKey(token), { cache: keyCache });
 * if (!verdict.ok) return failureResponse(c, { kind: "unauthenticated", ...verdict });
 * ```
 */
export async function verifyKeyDigest(env: Env, digest: string, { cache }: VerifyKeyOptions = {}): Promise<KeyVerdict> {
  if (isAdminTokenDigest(digest, adminTokenOf(env))) return { ok: true, principal: ADMIN_TOKEN_PRINCIPAL, digest };
  const cached = cache?.get(digest);
  if (cached !== undefined) return { ok: true, principal: cached, digest };
  const found = await findApiKeyByHash(env.DB, digest);
  if (found === undefined || !digestsEqual(found.keyHash, digest)) return { ok: false, reason: "unknown_key" };
  if (found.record.revokedAt !== null) return { ok: false, reason: "revoked_key", revokedAt: found.record.revokedAt };
  const principal = principalOf(found.record);
  cache?.set(digest, principal);
  return { ok: true, principal, digest };
}

/** Who a key, as presented, authenticates as. */
export async function verifyKey(env: Env, key: string, options: VerifyKeyOptions = {}): Promise<KeyVerdict> {
  return verifyKeyDigest(env, hashApiKey(key), options);
}
