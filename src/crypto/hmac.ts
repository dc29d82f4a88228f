/**
 * HMAC-SHA256 under a shared secret: webhook signatures (checked and made), callbacks and
 * approval notifications. Keys are imported once per secret: importKey per message would be most
 * of a signature's cost, and the secrets are few and stable.
 */
import { bytesToHex } from "./encoding.ts";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    // Secrets come from configuration; a bound keeps a misuse from growing the map without end.
    if (keys.size > 64) keys.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

const bytesOf = (data: string | Uint8Array): Uint8Array => (typeof data === "string" ? encoder.encode(data) : data);

/** The MAC of `data` (a text as its UTF-8 bytes), as lowercase hex. */
export async function hmacSha256Hex(secret: string, data: string | Uint8Array): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), bytesOf(data))));
}

/** Whether `mac` is the MAC of `data`, compared in constant time by the runtime. */
export async function hmacSha256Matches(secret: string, mac: Uint8Array, data: Uint8Array): Promise<boolean> {
  return crypto.subtle.verify("HMAC", await hmacKey(secret), mac, data);
}
