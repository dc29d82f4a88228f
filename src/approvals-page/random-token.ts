/** Unguessable tokens for the approvals page: sign-in ids and CSRF tokens. */

/** 32 random bytes (256 bits) as base64url without padding: 43 characters, cookie- and form-safe. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
