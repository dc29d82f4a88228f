/**
 * ES256 (ECDSA P-256 with SHA-256, RFC 7518 section 3.4) JSON Web Tokens in JWS compact form,
 * signed with Web Crypto: toolgate only ever signs, so the whole of it is a header, a payload and
 * one signature. Web Crypto's ECDSA signature is already the 64-byte r||s the JWS wants (not DER).
 *
 * Keys come from a secret holding a private JWK, or a JSON array of them for rotation: the first
 * signs, every one is published, so tokens signed with the previous key still verify until it is
 * dropped from the list.
 */
import { hexToBytes, toBase64url } from "./encoding.ts";
import { sha256Hex } from "./sha256.ts";

const encoder = new TextEncoder();

/** A public key as `/.well-known/jwks.json` lists it (RFC 7517). */
export interface PublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

export interface SigningKeys {
  /** The key that signs, with its kid. */
  current: { key: CryptoKey; kid: string };
  /** Every configured key's public half, the current one first. */
  published: PublicJwk[];
}

export type LoadedKeys = { ok: true; keys: SigningKeys } | { ok: false; message: string };

/** Keys per secret text: importing is the costly part, and the secret is the same on every call. */
const loaded = new Map<string, Promise<LoadedKeys>>();

/**
 * The keys a secret holds, imported once per isolate. The message of a refusal names what is
 * wrong with the secret, never its content.
 */
export function loadSigningKeys(secret: string): Promise<LoadedKeys> {
  let keys = loaded.get(secret);
  if (keys === undefined) {
    if (loaded.size > 4) loaded.clear();
    keys = importKeys(secret);
    loaded.set(secret, keys);
  }
  return keys;
}

async function importKeys(secret: string): Promise<LoadedKeys> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    return { ok: false, message: "is not JSON: it must hold a private EC P-256 JWK, or a JSON array of them (the first signs)" };
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0 || list.length > 10) return { ok: false, message: "must hold 1 to 10 private JWKs" };
  const published: PublicJwk[] = [];
  let current: SigningKeys["current"] | undefined;
  for (const [index, jwk] of list.entries()) {
    if (!isPrivateP256(jwk)) return { ok: false, message: `key ${index} is not a private EC P-256 JWK (kty "EC", crv "P-256", x, y and d)` };
    const kid = typeof jwk.kid === "string" && jwk.kid !== "" ? jwk.kid : thumbprint(jwk);
    let key: CryptoKey;
    try {
      key = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d }, { name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
      ]);
    } catch {
      return { ok: false, message: `key ${index} does not import as an EC P-256 private key` };
    }
    current ??= { key, kid };
    published.push({ kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, kid, alg: "ES256", use: "sig" });
  }
  if (current === undefined) return { ok: false, message: "holds no key" };
  return { ok: true, keys: { current, published } };
}

interface PrivateP256 {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  d: string;
  kid?: unknown;
}

function isPrivateP256(value: unknown): value is PrivateP256 {
  if (typeof value !== "object" || value === null) return false;
  const jwk = value as Record<string, unknown>;
  return jwk.kty === "EC" && jwk.crv === "P-256" && typeof jwk.x === "string" && typeof jwk.y === "string" && typeof jwk.d === "string";
}

/** RFC 7638 thumbprint: SHA-256 of the required members in lexicographic order, no whitespace. */
function thumbprint(jwk: PrivateP256): string {
  return toBase64url(hexToBytes(sha256Hex(JSON.stringify({ crv: "P-256", kty: "EC", x: jwk.x, y: jwk.y }))));
}

/** Signs `claims` as a JWT (`typ: JWT`) with the current key, its kid in the header. */
export async function signJwt(keys: SigningKeys, claims: Record<string, unknown>): Promise<string> {
  const header = toBase64url(encoder.encode(JSON.stringify({ alg: "ES256", typ: "JWT", kid: keys.current.kid })));
  const payload = toBase64url(encoder.encode(JSON.stringify(claims)));
  const input = `${header}.${payload}`;
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.current.key, encoder.encode(input));
  return `${input}.${toBase64url(new Uint8Array(signature))}`;
}
