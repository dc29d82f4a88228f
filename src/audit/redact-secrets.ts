/**
 * Secrets never reach the audit log: the value of any key whose name looks like a credential is
 * replaced, at every depth, before the arguments are hashed, capped or stored.
 *
 * Matching is by substring of the key with case and separators ignored, so `accessToken`,
 * `X-Api-Key`, `client_secret` and `Authorization` all match. It fails closed: `max_tokens`
 * matches too, and losing that number from a log is the accepted price of never keeping a token.
 */

/** Key fragments that mark a secret, lowercase and without separators. */
import { shortenLongString } from "./shorten-long-strings.ts";

export const SECRET_KEY_MARKERS = ["token", "password", "secret", "apikey", "authorization"] as const;

/** What a secret's value becomes. */
export const REDACTED = "[REDACTED]";

/** Whether a key's value must be redacted. */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  return SECRET_KEY_MARKERS.some((marker) => normalized.includes(marker));
}

/** A copy of `value` with every secret-named key's value replaced by REDACTED. */
export function redactSecrets(value: unknown): unknown {
  return redact(value, new WeakSet());
}

function redact(value: unknown, seen: WeakSet<object>): unknown {
  // In the same walk: the audit keeps only the start of a very long string (shorten-long-strings.ts).
  if (typeof value === "string") return shortenLongString(value);
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item: unknown) => redact(item, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = isSecretKey(key) ? REDACTED : redact(item, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

// `"key": "string"` or `"key": bare-value`, in text that is not valid JSON as a whole.
const KEY_VALUE = /("((?:[^"\\]|\\.)*)"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/g;

/**
 * Best effort for arguments that did not parse as JSON (the model's malformed text is logged as
 * it came): the value after each secret-named `"key":` is replaced. A secret nested in an object
 * under such a key, or written without quotes around its key, is not found.
 */
export function redactSecretsInText(text: string): string {
  return text.replace(KEY_VALUE, (match: string, prefix: string, key: string) => (isSecretKey(key) ? `${prefix}"${REDACTED}"` : match));
}
