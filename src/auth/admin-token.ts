/**
 * The bootstrap admin token: the `ADMIN_TOKEN` secret (`wrangler secret put ADMIN_TOKEN`;
 * locally, scripts/dev-setup.ts writes one into .dev.vars). It exists so the first API key can
 * be created; it is not stored in D1 and cannot be revoked through the API, only by changing
 * the secret.
 */

import { digestsEqual, hashApiKey } from "./key-hash.ts";
import type { Principal } from "./principal.ts";

/** The keyId the admin token authenticates as (audit records show it). */
export const ADMIN_TOKEN_KEY_ID = "admin-token";

/** The principal of the admin token: admin role, every toolset, no policy limits. */
export const ADMIN_TOKEN_PRINCIPAL: Principal = {
  keyId: ADMIN_TOKEN_KEY_ID,
  name: "admin token (ADMIN_TOKEN)",
  role: "admin",
  toolsets: null,
  policy: { mode: "deny", patterns: [] },
  rateLimitPerMinute: null,
  scopes: [],
};

// The secret's digest, computed once per isolate (and again only if the secret changes). The
// digest is kept, not the promise of it, so no request waits on a promise another request made:
// workerd binds a promise to the request that created it, and sharing one across requests is
// a known source of cancelled continuations and cross-request I/O errors.
let configuredDigest: { secret: string; digest: string } | undefined;

/**
 * Whether a presented token (given as its digest) is the configured admin token. Digests are
 * compared, in constant time, so neither the secret's content nor its length shows in timing.
 * An unset or blank secret never matches.
 */
export function isAdminTokenDigest(presentedDigest: string, configured: string | undefined): boolean {
  if (configured === undefined) return false;
  if (configuredDigest?.secret !== configured) configuredDigest = { secret: configured, digest: configured.trim() === "" ? "" : hashApiKey(configured) };
  return configuredDigest.digest !== "" && digestsEqual(presentedDigest, configuredDigest.digest);
}
