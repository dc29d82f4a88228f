/**
 * The shape of an API key: `tg_` and the base64url text of 32 random bytes (256 bits). Shared by
 * the Worker and scripts/dev-setup.ts (Node), so it uses only Web Crypto and `btoa`, which both
 * runtimes have.
 */

export const API_KEY_PREFIX = "tg_";

/** Random bytes in a key: 256 bits, so guessing one is hopeless however fast the attacker is. */
const KEY_BYTES = 32;

/** Characters of a key shown in listings: `tg_` plus 6 more (36 of its 256 bits). */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

/** A new random key, e.g. `tg_3q2-7wQ...` (46 characters). */
export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
  const base64 = btoa(String.fromCharCode(...bytes));
  return API_KEY_PREFIX + base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The part of a key that listings show, so a person can tell their keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
