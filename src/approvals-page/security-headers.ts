/**
 * Response headers of every approvals page. The page runs no script at all, so the policy
 * allows none; styles come only from our own stylesheet; no other site may frame the page
 * (clickjacking an "Approve" button is the attack that matters here).
 */
import type { MiddlewareHandler } from "hono";

/**
 * The page policy. `formActions` adds sources a form may reach: browsers hold a form's
 * submission to `form-action` through every redirect, so the OAuth consent form, whose answer
 * redirects to the client, names the client's redirect origin. `more` adds directives (the chat
 * page's own-origin script and event stream).
 */
export function contentSecurityPolicy(formActions: readonly string[] = [], more: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    ["form-action 'self'", ...formActions].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    ...more,
  ].join("; ");
}

const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/**
 * Sets the page headers after the handler ran, so they cover error pages too. A handler's own
 * Cache-Control (the stylesheet's) and Content-Security-Policy (the consent page's) are kept; everything else is never cached, since it shows
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
    if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}
