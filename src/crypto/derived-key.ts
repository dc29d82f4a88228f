/**
 * Keys derived from a configured secret, one per purpose (domain separation): a secret shared
 * with another use (ADMIN_TOKEN) never signs a token directly, and a token of one kind can never
 * verify as another. Derived once per secret and label; there are a few of each per isolate.
 */
import { hmacSha256Hex } from "./hmac.ts";

const derived = new Map<string, Promise<string>>();

/** The key for `label` under `secret`: HMAC-SHA256(secret, label), hex. */
export function derivedKey(secret: string, label: string): Promise<string> {
  const id = `${label}\n${secret}`;
  let key = derived.get(id);
  if (key === undefined) {
    if (derived.size > 16) derived.clear();
    key = hmacSha256Hex(secret, label);
    derived.set(id, key);
  }
  return key;
}
