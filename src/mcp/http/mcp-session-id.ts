/**
 * MCP session ids that need no storage (Streamable HTTP, "Session Management"): `initialize`
 * hands out `<session uuid>.<expiry, epoch s>.<HMAC-SHA256 hex>`, the MAC taken over the
 * session, the calling key's id and the expiry. Any isolate verifies one with the secret alone,
 * so a session costs nothing until a call in it needs approval, and then it is the approvals'
 * own `Session` object (`mcp-<uuid>`), which is what makes "approve for this session" and a
 * re-sent call's stored outcome work over MCP.
 *
 * The key id is inside the MAC, not the token: a session shown to another key fails like a
 * forged one, and the token names no key. An id stays valid until it expires; DELETE ends the
 * grants it carries (Session.endGrants), not the id itself, which would need storage to revoke.
 */

import { derivedKey } from "../../crypto/derived-key.ts";
import { hexToBytes } from "../../crypto/encoding.ts";
import { hmacSha256Hex, hmacSha256Matches } from "../../crypto/hmac.ts";

/** Why a sent session id is refused; each is answered 404, so the client initialises again. */
export type SessionIdRefusal = "malformed" | "not_valid" | "expired";

export type VerifiedSessionId = { ok: true; sessionId: string; expiresAt: number } | { ok: false; reason: SessionIdRefusal };

/** The approvals session (and audit `session_id`) of an MCP session. */
export const APPROVAL_SESSION_PREFIX = "mcp-";

/** Domain separation: the signing key is derived, so a secret shared with another use (ADMIN_TOKEN) never signs these directly. */
const KEY_LABEL = "toolgate mcp-session-id v1";
const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(\d{1,12})\.([0-9a-f]{64})$/;
const encoder = new TextEncoder();

const signingKey = (secret: string): Promise<string> => derivedKey(secret, KEY_LABEL);

const signed = (sessionId: string, keyId: string, expiresAtSeconds: number): string => `${sessionId}\n${keyId}\n${expiresAtSeconds}`;

/**
 * A new session id for `keyId`, valid for `ttlSeconds`.
 *
 * @example
 * const id = await issueSessionId(secret, "key-1", 86_400); // "6f1c…-….1764590000.3a9e…"
 */
export async function issueSessionId(secret: string, keyId: string, ttlSeconds: number, now = Date.now()): Promise<string> {
  const sessionId = crypto.randomUUID();
  const expiresAt = Math.floor(now / 1000) + ttlSeconds;
  const mac = await hmacSha256Hex(await signingKey(secret), signed(sessionId, keyId, expiresAt));
  return `${sessionId}.${expiresAt}.${mac}`;
}

/** Checks a sent session id against the calling key: the MAC first (in constant time), then the expiry. */
export async function verifySessionId(secret: string, token: string, keyId: string, now = Date.now()): Promise<VerifiedSessionId> {
  const match = TOKEN.exec(token);
  if (match === null) return { ok: false, reason: "malformed" };
  const [, sessionId = "", expiry = "", mac = ""] = match;
  const expiresAt = Number(expiry);
  const valid = await hmacSha256Matches(await signingKey(secret), hexToBytes(mac), encoder.encode(signed(sessionId, keyId, expiresAt)));
  if (!valid) return { ok: false, reason: "not_valid" };
  if (expiresAt * 1000 <= now) return { ok: false, reason: "expired" };
  return { ok: true, sessionId, expiresAt: expiresAt * 1000 };
}
