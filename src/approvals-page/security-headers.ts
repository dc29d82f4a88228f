/**
 * Response headers of every approvals page. The page runs no script at all, so the policy
 * allows none; styles come only from our own stylesheet; no other site may frame the page
 * (clickjacking an "Approve" button is the attack that matters here).
 */
import type { MiddlewareHandler } from "hono";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/**
 * Sets the page headers after the handler ran, so they cover error pages too. A handler's own
 * Cache-Control (the stylesheet's) is kept; everything else is never cached, since it shows
 * arguments and decisions.
 *
 * @example
 * ```ts
 * page.use("/approvals/*", securityHeaders());
 * ```
 */
export function securityHeaders(): MiddlewareHandler {
  return async function securityHeaders(c, next) {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}
