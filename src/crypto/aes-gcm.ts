/**
 * AES-256-GCM sealing of small secrets kept at rest (OAuth tokens of remote MCP servers): the key
 * is the SHA-256 of a Worker secret, imported once per secret; every seal draws a fresh 96-bit IV
 * (NIST SP 800-38D's recommended length) and binds `context` as additional data, so a sealed
 * value copied under another KV key no longer opens.
 */
import { fromBase64url, hexToBytes, toBase64url } from "./encoding.ts";
import { sha256Hex } from "./sha256.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** A sealed value as stored: base64url IV and ciphertext (tag included), and the format version. */
export interface Sealed {
  v: 1;
  iv: string;
  data: string;
}

function aesKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size > 8) keys.clear();
    // The secret is any long random string; its SHA-256 is exactly the 256 bits AES needs.
    const raw = hexToBytes(sha256Hex(secret));
    key = crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
    keys.set(secret, key);
  }
  return key;
}

/** Encrypts `plaintext` under `secret`, bound to `context` (such as the KV key it is stored under). */
export async function seal(secret: string, context: string, plaintext: string): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(context) }, await aesKey(secret), encoder.encode(plaintext));
  return { v: 1, iv: toBase64url(iv), data: toBase64url(new Uint8Array(data)) };
}

/** The plaintext of a sealed value, or undefined when the key, the context or the bytes do not match. */
export async function open(secret: string, context: string, sealed: Sealed): Promise<string | undefined> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64url(sealed.iv), additionalData: encoder.encode(context) },
      await aesKey(secret),
      fromBase64url(sealed.data),
    );
    return decoder.decode(plain);
  } catch {
    return undefined;
  }
}
