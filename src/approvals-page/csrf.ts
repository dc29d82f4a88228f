/**
 * Cross-site request forgery defences of the approvals page's POSTs. Three layers, any one of
 * which stops a forged form: the sign-in cookie is SameSite=Strict (never sent by a cross-site
 * request), every form carries the sign-in's token (checked here in constant time), and a
 * browser's Origin and Sec-Fetch-Site headers, when sent, must say the request came from this
 * site.
 */

const encoder = new TextEncoder();

/** Whether a submitted token is the expected one; constant time in the token's content. */
export function tokensEqual(submitted: string | undefined, expected: string): boolean {
  if (submitted === undefined) return false;
  const left = encoder.encode(submitted);
  const right = encoder.encode(expected);
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}

/**
 * Whether the browser's own provenance headers allow the request. Either header may be absent
 * (older browsers, non-browser clients); the token check still applies then.
 *
 * `Origin: null` is not a mismatch: under our `Referrer-Policy: no-referrer`, browsers send
 * exactly that on the page's own form posts (Fetch standard, "serializing a request origin").
 * Sec-Fetch-Site is not affected by the referrer policy, so it carries the decision then; a
 * sandboxed or cross-site sender says "cross-site" there.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== "null" && origin !== new URL(request.url).origin) return false;
  const site = request.headers.get("sec-fetch-site");
  return site === null || site === "same-origin";
}
