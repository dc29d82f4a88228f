/** @jsxImportSource hono/jsx */
/**
 * Signing in to the signed-in sites (the approvals page, the admin console, the chat page:
 * page-site.ts), and the check in front of every page behind them.
 *
 * Sign-in takes an API key once, checks it with verify-key.ts (the same check as the API's bearer
 * header) and records the sign-in server-side (sign-in-store.ts). One cookie serves every site:
 * each request re-reads the key's role and opens only the sites that role may see, so signing in
 * on one page signs in on all of them and signing out anywhere signs out everywhere. The cookie is
 * `__Host-` prefixed (Secure, Path=/, no Domain: only this exact origin over HTTPS), HttpOnly and
 * SameSite=Strict. Every later request re-checks the key in D1, bypassing the isolate's key cache,
 * so revoking the key ends its page sign-ins at once.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import type { Principal } from "../auth/principal.ts";
import { type KeyVerdict, verifyKey, verifyKeyDigest } from "../auth/verify-key.ts";
import { isSameOrigin, tokensEqual } from "./csrf.ts";
import { ErrorPage } from "./error-page.tsx";
import type { PageEnv } from "./page-env.ts";
import { APPROVALS_SITE, navFor, type PageSite, SESSION_COOKIE } from "./page-site.ts";
import { randomToken } from "./random-token.ts";
import { renderPage } from "./render-page.ts";
import { SignInPage } from "./sign-in-page.tsx";
import { createPageSignIn, deletePageSignIn, PAGE_SIGN_IN_TTL_SECONDS, readPageSignIn } from "./sign-in-store.ts";

/** The sign-in form's double-submit CSRF cookie, sent as `__Host-toolgate-sign-in` (every site). */
export const SIGN_IN_COOKIE = "toolgate-sign-in";

const SIGN_IN_FORM_TTL_SECONDS = 60 * 60;
const COOKIE: CookieOptions = { prefix: "host", path: "/", secure: true, httpOnly: true, sameSite: "Strict" };

type PageContext = Context<PageEnv>;

/** A form field as a string; files and missing fields are undefined. */
export async function formField(c: PageContext, name: string): Promise<string | undefined> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : undefined;
}

/** The sign-in handlers and guards of one site. */
export interface PageAuth {
  signInResponse(c: PageContext, status: 200 | 401 | 403, next: string, message?: string): Response | Promise<Response>;
  signIn(c: PageContext): Promise<Response>;
  signOut(c: PageContext): Promise<Response>;
  requirePageSignIn(): MiddlewareHandler<PageEnv>;
  requireSameOrigin(): MiddlewareHandler<PageEnv>;
}

/**
 * Sign-in for `site`, built once per site. Every site reads and writes the same cookie and store;
 * what differs is which roles may open the site's pages and where a sign-in returns to.
 *
 * @example
 * ```ts
 * const auth = pageAuth(APPROVALS_SITE);
 * page.post("/approvals/sign-in", auth.signIn);
 * page.use("/approvals/*", auth.requirePageSignIn());
 * ```
 */
export function pageAuth(site: PageSite): PageAuth {
  // Only the site's own pages may be a post-sign-in target: a path under its base, no scheme, no
  // host, nothing a browser could read as another origin ("//evil", "/\evil"), no dot segment
  // that climbs out ("/approvals/../v1").
  const nextPath = new RegExp(`^${site.base}(?:/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$`);
  const { outside } = site;
  const safeNext = (value: unknown): string => (typeof value === "string" && (nextPath.test(value) || outside?.next.test(value) === true) ? value : site.base);
  const wrongRole = (principal: Pick<Principal, "name" | "role">): string => `The key "${principal.name}" has the ${principal.role} role; ${site.roleHint}`;
  const errorPage = (c: PageContext, message: string, viewer?: PageEnv["Variables"]["viewer"]) =>
    renderPage(c, <ErrorPage title="Form refused" message={message} viewer={viewer} site={site} />, 403);
  // Sign-out is open to every signed-in role, so the sign-out button of a refusal page works too.
  const signOutPath = `${site.base}/sign-out`;
  // A sign-in whose role may not see this site: it stays signed in (the other sites are still its
  // own), and the page says so with the links it may follow instead of a sign-in form.
  const notForRole = (c: PageContext, viewer: PageEnv["Variables"]["viewer"]) => {
    const [elsewhere] = navFor(viewer.role);
    const message = `${wrongRole({ name: viewer.name, role: viewer.role })} Open a page you may see from the menu, or sign out and sign in with another key.`;
    return renderPage(c, <ErrorPage title="Not open to this key" message={message} viewer={viewer} site={site} back={elsewhere} />, 403);
  };

  function signInResponse(c: PageContext, status: 200 | 401 | 403, next: string, message?: string): Response | Promise<Response> {
    const token = randomToken();
    setCookie(c, SIGN_IN_COOKIE, token, { ...COOKIE, maxAge: SIGN_IN_FORM_TTL_SECONDS });
    return renderPage(c, <SignInPage csrfToken={token} next={next} message={message} site={site} />, status);
  }

  return {
    signInResponse,

    /** POST <base>/sign-in: key in, signed-in cookie out, then back to the page asked for. */
    async signIn(c) {
      const next = safeNext(await formField(c, "next"));
      const expected = getCookie(c, SIGN_IN_COOKIE, "host");
      if (expected === undefined || !tokensEqual(await formField(c, "csrf"), expected)) {
        return signInResponse(c, 403, next, "The sign-in form expired or did not come from this page. Please sign in again.");
      }
      const key = (await formField(c, "key"))?.trim() ?? "";
      if (key === "") return signInResponse(c, 401, next, "Enter an API key.");
      const verdict = await verifyKey(c.env, key);
      if (!verdict.ok) return signInResponse(c, 401, next, refusal(verdict, false));
      if (!site.roles.includes(verdict.principal.role)) return signInResponse(c, 403, next, wrongRole(verdict.principal));

      // Signing in again (another key, say) replaces the sign-in the browser had, so no record outlives its cookie.
      const earlier = getCookie(c, SESSION_COOKIE, "host");
      if (earlier !== undefined) await deletePageSignIn(c.env.KV, earlier);
      const { id } = await createPageSignIn(c.env.KV, { keyDigest: verdict.digest, keyId: verdict.principal.keyId });
      setCookie(c, SESSION_COOKIE, id, { ...COOKIE, maxAge: PAGE_SIGN_IN_TTL_SECONDS });
      deleteCookie(c, SIGN_IN_COOKIE, COOKIE);
      return c.redirect(next, 303);
    },

    /** POST <base>/sign-out (behind `requirePageSignIn()`): ends the one sign-in, so every site signs out. */
    async signOut(c) {
      await deletePageSignIn(c.env.KV, c.get("pageSignInId"));
      deleteCookie(c, SESSION_COOKIE, COOKIE);
      return c.redirect(site.base, 303);
    },

    /**
     * Lets a request through only with a live sign-in whose key is still valid and has one of the
     * site's roles; for a POST, also only with the sign-in's CSRF token. Otherwise it answers with
     * the sign-in page (401: no sign-in, or its key no longer valid) or an error page (403: a role
     * this site is not for, or a bad token), never a redirect loop.
     */
    requirePageSignIn() {
      return async function requirePageSignIn(c, next) {
        const isPost = c.req.method === "POST";
        // The outside page comes back to its whole request (its query is the request); others to their path.
        const path = c.req.path === outside?.path ? `${c.req.path}${new URL(c.req.url).search}` : c.req.path;
        const here = isPost ? site.base : safeNext(path);
        const id = getCookie(c, SESSION_COOKIE, "host");
        const signedIn = id === undefined ? undefined : await readPageSignIn(c.env.KV, id);
        if (id === undefined || signedIn === undefined) {
          if (id !== undefined) deleteCookie(c, SESSION_COOKIE, COOKIE);
          return signInResponse(c, 401, here, id === undefined && !isPost ? undefined : "Your session has ended. Sign in again.");
        }
        const verdict = await verifyKeyDigest(c.env, signedIn.keyDigest);
        if (!verdict.ok) {
          await deletePageSignIn(c.env.KV, id);
          deleteCookie(c, SESSION_COOKIE, COOKIE);
          return signInResponse(c, 401, here, refusal(verdict, true));
        }
        const viewer = { keyId: verdict.principal.keyId, name: verdict.principal.name, role: verdict.principal.role, csrfToken: signedIn.csrfToken };
        if (!site.roles.includes(viewer.role) && c.req.path !== signOutPath) return notForRole(c, viewer);
        if (isPost && !tokensEqual(await formField(c, "csrf"), signedIn.csrfToken)) {
          return errorPage(c, "The form's security token is missing or wrong, so nothing was changed. Reload the page and try again.", viewer);
        }
        c.set("principal", verdict.principal);
        c.set("viewer", viewer);
        c.set("pageSignInId", id);
        return next();
      };
    },

    /**
     * Refuses any POST a browser says came from another site, before anything reads the body. The
     * CSRF tokens are the main defence; this stops a forged request even if one leaked.
     */
    requireSameOrigin() {
      return async function requireSameOrigin(c, next) {
        if (c.req.method !== "POST" || isSameOrigin(c.req.raw)) return next();
        return errorPage(c, `This form was sent from another site, so nothing was changed. Open ${site.base} and try again.`);
      };
    },
  };
}

function refusal(verdict: Exclude<KeyVerdict, { ok: true }>, ending: boolean): string {
  const ask = "Ask an admin for a key with the right role.";
  if (verdict.reason === "revoked_key")
    return `${ending ? "Your session ended: the key it was opened with" : "That API key"} was revoked at ${verdict.revokedAt}. ${ask}`;
  return ending ? "Your session ended: its key is no longer valid. Sign in again." : `That API key is not valid. Check that the whole key was pasted. ${ask}`;
}

/** The approvals page's sign-in; the OAuth consent page (`outside` in APPROVALS_SITE) is behind it too. */
export const { requirePageSignIn, requireSameOrigin } = pageAuth(APPROVALS_SITE);
