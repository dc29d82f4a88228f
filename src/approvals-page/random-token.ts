/** Unguessable tokens for the approvals page: sign-in ids and CSRF tokens. */
import { toBase64url } from "../crypto/encoding.ts";

/** 32 random bytes (256 bits) as base64url without padding: 43 characters, cookie- and form-safe. */
export function randomToken(): string {
  return toBase64url(crypto.getRandomValues(new Uint8Array(32)));
}
