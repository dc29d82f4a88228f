/**
 * How keys are stored and compared: only a SHA-256 digest is kept, and digests are compared in
 * constant time.
 *
 * Why a plain SHA-256 and not bcrypt/scrypt/PBKDF2: slow, salted hashes exist to protect
 * low-entropy secrets (passwords) from offline guessing. Our keys carry 256 random bits, so even
 * a fast hash leaves nothing to guess, and a leaked table reveals no key. A deterministic,
 * unsalted digest can also be looked up through a unique index (one D1 query per cache miss),
 * and it costs microseconds instead of the tens of milliseconds of CPU a KDF would take from
 * every request's budget.
 */
import { sha256Hex } from "../crypto/sha256.ts";

/**
 * The SHA-256 digest of a key, as 64 lowercase hex characters (the `key_hash` column). Synchronous
 * (src/crypto/sha256.ts says why): every authenticated request hashes its key.
 */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/**
 * Compares two hex digests in constant time. The D1 lookup by digest already found the row; this
 * re-check keeps every secret comparison on one constant-time path (and guards against a
 * collation or index quirk ever matching a different value). Every character is compared, with
 * no early exit, so the time depends on the length alone (a digest's is public). Not
 * `crypto.subtle.timingSafeEqual`: it needs both digests encoded to bytes first, and the two
 * encodes and the runtime call showed in every request's profile (the admin token's check runs
 * on every authenticated request).
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
