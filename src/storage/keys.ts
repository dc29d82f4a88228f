/**
 * Every key shape this Worker writes to KV. docs/storage.md has a row for each, with its value
 * shape and lifetime; change both together.
 */

/** A runtime-created toolset: JSON `CustomToolsetRecord`, no expiry, deleted through the API. */
export const CUSTOM_TOOLSET_PREFIX = "toolset:custom:";
export const customToolsetKey = (name: string): string => `${CUSTOM_TOOLSET_PREFIX}${name}`;

/**
 * The full text of a result too large to return inline: JSON `StoredResult`, expiring after
 * RESULT_TTL_SECONDS (at least KV's 60 s minimum).
 */
export const STORED_RESULT_PREFIX = "result:";
export const storedResultKey = (handle: string): string => `${STORED_RESULT_PREFIX}${handle}`;

/**
 * A tool's last availability check: JSON `StoredAvailability` (available, reason, checkedAt,
 * lastGoodAt). Freshness comes from checkedAt (30 s), not from the key's expiry (120 s, above
 * KV's 60 s minimum).
 */
export const AVAILABILITY_PREFIX = "avail:";
export const availabilityKey = (tool: string): string => `${AVAILABILITY_PREFIX}${tool}`;

/**
 * A signed-in approvals page session, keyed by the SHA-256 (hex) of the random session id the
 * cookie carries, so reading KV never yields a usable cookie: JSON `PageSession`, expiring with
 * the session (PAGE_SESSION_TTL_SECONDS in src/approvals-page/page-session.ts).
 */
export const APPROVALS_PAGE_SESSION_PREFIX = "approvals-session:";
export const approvalsPageSessionKey = (idDigest: string): string => `${APPROVALS_PAGE_SESSION_PREFIX}${idDigest}`;
