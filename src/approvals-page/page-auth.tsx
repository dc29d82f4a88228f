/** @jsxImportSource hono/jsx */
/**
 * Signing in to the approvals page, and the check in front of every page behind it.
 *
 * Sign-in takes an approver's or admin's API key once, checks it with verify-key.ts (the same
 * check as the API's bearer header) and records the sign-in server-side (sign-in-store.ts). The
 * cookie is `__Host-` prefixed (Secure, Path=/, no Domain: only this exact origin over HTTPS),
 * HttpOnly and SameSite=Strict. Every later request re-checks the key in D1, bypassing the
 * isolate's key cache, so revoking the key ends its page sign-ins at once.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import type { Principal } from "../auth/principal.ts";
import { verifyKey, verifyKeyDigest, type KeyVerdict } from "../auth/verify-key.ts";
import { isSameOrigin, tokensEqual } from "./csrf.ts";
import { ErrorPage } from "./error-page.tsx";
import { createPageSignIn, deletePageSignIn, PAGE_SIGN_IN_TTL_SECONDS, readPageSignIn } from "./sign-in-store.ts";
import type { PageEnv } from "./page-env.ts";
import { randomToken } from "./random-token.ts";
import { renderPage } from "./render-page.ts";
import { SignInPage } from "./sign-in-page.tsx";

/** The cookie held while signed in, sent as `__Host-toolgate-approvals`. */
export const SIGNED_IN_COOKIE = "toolgate-approvals";
/** The sign-in form's double-submit CSRF cookie, sent as `__Host-toolgate-sign-in`. */
export const SIGN_IN_COOKIE = "toolgate-sign-in";

const SIGN_IN_FORM_TTL_SECONDS = 60 * 60;
const COOKIE: CookieOptions = { prefix: "host", path: "/", secure: true, httpOnly: true, sameSite: "Strict" };

// Only our own pages may be a post-sign-in target: a path under /approvals, no scheme, no host,
// nothing a browser could read as another origin ("//evil", "/\evil"), no dot segment that
// climbs out ("/approvals/../v1"). Or the OAuth consent page with its request's query: the path
// is fixed, and a query (no backslash, no fragment, no space) cannot change the origin.
const NEXT_PATH = /^\/approvals(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;
const CONSENT_NEXT = /^\/oauth\/authorize\?[^\\#\s]*$/;
const safeNext = (value: unknown): string => (typeof value === "string" && (NEXT_PATH.test(value) || CONSENT_NEXT.test(value)) ? value : "/approvals");

const PAGE_ROLES: readonly Principal["role"][] = ["approver", "admin"];

type PageContext = Context<PageEnv>;

/** The sign-in page with a fresh form token (and its cookie twin). */
export function signInResponse(c: PageContext, status: 200 | 401 | 403, next: string, message?: string): Response | Promise<Response> {
  const token = randomToken();
  setCookie(c, SIGN_IN_COOKIE, token, { ...COOKIE, maxAge: SIGN_IN_FORM_TTL_SECONDS });
  return renderPage(c, <SignInPage csrfToken={token} next={next} message={message} />, status);
}

/** A form field as a string; files and missing fields are undefined. */
export async function formField(c: PageContext, name: string): Promise<string | undefined> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : undefined;
}

function refusal(verdict: Exclude<KeyVerdict, { ok: true }>, ending: boolean): string {
  const ask = "Ask an admin for an approver key.";
  if (verdict.reason === "revoked_key") return `${ending ? "Your session ended: the key it was opened with" : "That API key"} was revoked at ${verdict.revokedAt}. ${ask}`;
  return ending ? "Your session ended: its key is no longer valid. Sign in again." : `That API key is not valid. Check that the whole key was pasted. ${ask}`;
}

const wrongRole = (principal: Principal): string =>
  `The key "${principal.name}" has the ${principal.role} role; the approvals page needs an approver or admin key. Agent keys can never approve calls.`;

/** POST /approvals/sign-in: key in, signed-in cookie out, then back to the page asked for. */
export async function signIn(c: PageContext): Promise<Response> {
  const next = safeNext(await formField(c, "next"));
  const expected = getCookie(c, SIGN_IN_COOKIE, "host");
  if (expected === undefined || !tokensEqual(await formField(c, "csrf"), expected)) {
    return signInResponse(c, 403, next, "The sign-in form expired or did not come from this page. Please sign in again.");
  }
  const key = (await formField(c, "key"))?.trim() ?? "";
  if (key === "") return signInResponse(c, 401, next, "Enter an API key.");
  const verdict = await verifyKey(c.env, key);
  if (!verdict.ok) return signInResponse(c, 401, next, refusal(verdict, false));
  if (!PAGE_ROLES.includes(verdict.principal.role)) return signInResponse(c, 403, next, wrongRole(verdict.principal));

  const { id } = await createPageSignIn(c.env.KV, { keyDigest: verdict.digest, keyId: verdict.principal.keyId });
  setCookie(c, SIGNED_IN_COOKIE, id, { ...COOKIE, maxAge: PAGE_SIGN_IN_TTL_SECONDS });
  deleteCookie(c, SIGN_IN_COOKIE, COOKIE);
  return c.redirect(next, 303);
}

/** POST /approvals/sign-out (behind `requirePageSignIn()`): ends the sign-in everywhere it is read. */
export async function signOut(c: PageContext): Promise<Response> {
  await deletePageSignIn(c.env.KV, c.get("pageSignInId"));
  deleteCookie(c, SIGNED_IN_COOKIE, COOKIE);
  return c.redirect("/approvals", 303);
}

/**
 * Lets a request through only with a live sign-in whose key is still valid and may approve;
 * for a POST, also only with the sign-in's CSRF token. Otherwise it answers with the sign-in
 * page (401) or an error page (403), never a redirect loop.
 */
export function requirePageSignIn(): MiddlewareHandler<PageEnv> {
  return async function requirePageSignIn(c, next) {
    const isPost = c.req.method === "POST";
    // The consent page comes back to its whole request (the query is the OAuth request); others to their path.
    const path = c.req.path === "/oauth/authorize" ? `${c.req.path}${new URL(c.req.url).search}` : c.req.path;
    const here = isPost ? "/approvals" : safeNext(path);
    const id = getCookie(c, SIGNED_IN_COOKIE, "host");
    const signedIn = id === undefined ? undefined : await readPageSignIn(c.env.KV, id);
    if (id === undefined || signedIn === undefined) {
      if (id !== undefined) deleteCookie(c, SIGNED_IN_COOKIE, COOKIE);
      return signInResponse(c, 401, here, id === undefined && !isPost ? undefined : "Your session has ended. Sign in again.");
    }
    const verdict = await verifyKeyDigest(c.env, signedIn.keyDigest);
    if (!verdict.ok || !PAGE_ROLES.includes(verdict.principal.role)) {
      await deletePageSignIn(c.env.KV, id);
      deleteCookie(c, SIGNED_IN_COOKIE, COOKIE);
      return signInResponse(c, 401, here, verdict.ok ? wrongRole(verdict.principal) : refusal(verdict, true));
    }
    const viewer = { keyId: verdict.principal.keyId, name: verdict.principal.name, role: verdict.principal.role, csrfToken: signedIn.csrfToken };
    if (isPost && !tokensEqual(await formField(c, "csrf"), signedIn.csrfToken)) {
      const message = "The form's security token is missing or wrong, so nothing was changed. Reload the page and try again.";
      return renderPage(c, <ErrorPage title="Form refused" message={message} viewer={viewer} />, 403);
    }
    c.set("principal", verdict.principal);
    c.set("viewer", viewer);
    c.set("pageSignInId", id);
    return next();
  };
}

/**
 * Refuses any POST a browser says came from another site, before anything reads the body. The
 * CSRF tokens are the main defence; this stops a forged request even if one leaked.
 */
export function requireSameOrigin(): MiddlewareHandler<PageEnv> {
  return async function requireSameOrigin(c, next) {
    if (c.req.method !== "POST" || isSameOrigin(c.req.raw)) return next();
    return renderPage(c, <ErrorPage title="Form refused" message="This form was sent from another site, so nothing was changed. Open the approvals page and try again." />, 403);
  };
}
