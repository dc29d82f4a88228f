/** @jsxImportSource hono/jsx */
/**
 * The OAuth authorization endpoint, `/oauth/authorize`: a person signs in with an approver or
 * admin key (the approvals page's sign-in, cookie and CSRF token), sees which app asks and where
 * its access goes, and picks the toolsets to grant. Allowing makes the grant a principal (role
 * agent, those toolsets; a row of api_keys listed by GET /v1/keys) and sends the app its code.
 *
 * | Request | Answer |
 * |---|---|
 * | GET, a request the provider refuses before its client and redirect URI are known good | an error page (400): never a redirect to an unchecked URI |
 * | GET, refused after that (PKCE, response type, resource) | a redirect to the client with the OAuth error |
 * | GET, good, not signed in | the sign-in page, which comes back here |
 * | GET, good, signed in | the consent page |
 * | POST decision=approve / deny | a redirect to the client with a code / `access_denied` |
 */
import { AuthorizationError, type AuthRequest, CimdFetchError, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ErrorPage } from "../approvals-page/error-page.tsx";
import type { Viewer } from "../approvals-page/layout.tsx";
import { requirePageSignIn, requireSameOrigin } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { contentSecurityPolicy, securityHeaders } from "../approvals-page/security-headers.ts";
import { createOAuthGrant } from "../auth/key-store.ts";
import type { Principal } from "../auth/principal.ts";
import { requestOrigin } from "../http/request-origin.ts";
import { listToolsetNames } from "../toolsets/custom-toolsets.ts";
import { fullAuthorizationServer } from "./authorization-server.ts";
import { ConsentPage } from "./consent-page.tsx";
import { AUTHORIZE_PATH, isResourceToolset, servesOAuth, toolsetOfResource } from "./oauth-paths.ts";

/** The consent form carries a handle, a token and a few toolset names. */
const MAX_FORM_BYTES = 16 * 1024;
/** A grant's name in GET /v1/keys: the app's name (names are at most 100 characters). */
const MAX_CLIENT_NAME_CHARS = 90;

type ConsentEnv = { Bindings: Env; Variables: PageEnv["Variables"] & { oauth: OAuthHelpers; authRequest: AuthRequest } };
type ConsentContext = Context<ConsentEnv>;

function errorPage(c: Context, viewer: Viewer | undefined, status: 400 | 413, title: string, message: string) {
  return renderPage(c, <ErrorPage title={title} message={message} viewer={viewer} />, status);
}

/** What a refused authorization request gets: a redirect only to a client and URI the provider checked. */
function refused(c: Context, viewer: Viewer | undefined, error: unknown): Response | Promise<Response> {
  if (error instanceof AuthorizationError) {
    if (error.redirectTo !== undefined) return c.redirect(error.redirectTo, 302);
    return errorPage(c, viewer, 400, "This sign-in request cannot be used", `${error.description} Start the sign-in again from the app.`);
  }
  if (error instanceof CimdFetchError)
    return errorPage(c, viewer, 400, "This app could not be verified", "Its client metadata document could not be fetched or read.");
  throw error;
}

/**
 * The toolsets the signed-in person may grant: their key's own (every one for an unrestricted
 * key), or just the door's toolset when the app asked for one toolset's door.
 */
async function grantableToolsets(env: Env, principal: Principal, door: string | undefined): Promise<string[]> {
  const own = principal.toolsets ?? (await listToolsetNames(env.KV));
  const names = own.filter(isResourceToolset);
  if (door === undefined) return names;
  return principal.toolsets === null || names.includes(door) ? [door] : [];
}

/** The `form-action` source of a redirect URI: its origin, or its scheme for an app's own scheme. */
function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
}

async function showConsent(c: ConsentContext): Promise<Response> {
  const oauth = c.get("oauth");
  const request = c.get("authRequest");
  const door = request.resource === undefined ? undefined : toolsetOfResource(requestOrigin(c.req.url), request.resource);
  const viewer = c.get("viewer");
  let details;
  try {
    details = await oauth.describeConsent(request);
  } catch (error) {
    return refused(c, viewer, error);
  }
  const toolsets = await grantableToolsets(c.env, c.get("principal"), door);
  const consent = await oauth.beginConsent(request);
  // The page's own policy, which securityHeaders() keeps: the answer to its form redirects to the app.
  c.header("Content-Security-Policy", contentSecurityPolicy([formActionSource(details.redirectUri)]));
  for (const cookie of consent.headers.getSetCookie()) c.header("Set-Cookie", cookie, { append: true });
  return renderPage(c, <ConsentPage viewer={viewer} details={details} handle={consent.handle} toolsets={toolsets} door={door} />);
}

async function decide(c: ConsentContext): Promise<Response> {
  const viewer = c.get("viewer");
  const form = await c.req.parseBody({ all: true });
  const handle = typeof form.handle === "string" ? form.handle : "";
  const picked = [form.toolset ?? []].flat().filter((value): value is string => typeof value === "string");
  const origin = requestOrigin(c.req.url);
  const oauth = (await fullAuthorizationServer(origin, c.env)).getOAuthApi(c.env);
  const expired = "This consent page expired, was already used, or was opened in another browser. Start the sign-in again from the app.";
  try {
    if (form.decision !== "approve") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    if (picked.length === 0)
      return errorPage(c, viewer, 400, "Pick a toolset", "Allowing an app needs at least one toolset to grant. Go back, tick one or more, and allow again.");
    const approved = await oauth.approveConsent(c.req.raw, handle);
    const request = approved.request;
    const door = request.resource === undefined ? undefined : toolsetOfResource(origin, request.resource);
    const principal = c.get("principal");
    const grantable = await grantableToolsets(c.env, principal, door);
    const refusedNames = picked.filter((name) => !grantable.includes(name));
    if (refusedNames.length > 0)
      return errorPage(
        c,
        viewer,
        400,
        "Toolset not grantable",
        `Your key may not grant ${refusedNames.join(", ")} here. Start the sign-in again from the app.`,
      );

    const client = await oauth.lookupClient(request.clientId);
    const grant = await createOAuthGrant(c.env.DB, {
      name: `${(client?.clientName ?? request.clientId).slice(0, MAX_CLIENT_NAME_CHARS)} (OAuth)`,
      role: "agent",
      toolsets: picked,
      policy: { mode: "deny", patterns: [] },
      rateLimitPerMinute: null,
      scopes: [],
      createdBy: principal.keyId,
      oauthClientId: request.clientId,
    });
    // The grant's id is the provider's user id: revoking the grant finds its tokens by it (grant-tokens.ts).
    const { redirectTo } = await oauth.completeAuthorization({ request, userId: grant.id, metadata: {}, scope: request.scope, props: {} });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    if (error instanceof AuthorizationError && error.redirectTo === undefined) return errorPage(c, viewer, 400, "This consent page cannot be used", expired);
    return refused(c, viewer, error);
  }
}

/** The authorization endpoint's routes, for `app.route("/", consentRoutes())`. */
export function consentRoutes(): Hono<ConsentEnv> {
  const page = new Hono<ConsentEnv>();
  page.use(AUTHORIZE_PATH, securityHeaders());
  page.post(
    AUTHORIZE_PATH,
    bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => errorPage(c, undefined, 413, "Form too large", `A form may send at most ${MAX_FORM_BYTES} bytes.`) }),
  );
  page.post(AUTHORIZE_PATH, requireSameOrigin());

  // The request is checked before anyone signs in: a bad one is refused without a sign-in page.
  page.use(AUTHORIZE_PATH, async function requireOAuthOrigin(c, next) {
    if (servesOAuth(requestOrigin(c.req.url))) return next();
    return errorPage(
      c,
      undefined,
      400,
      "Sign-in needs https",
      "OAuth sign-in is served over https only (or plain http on a loopback host, for local development).",
    );
  });
  page.get(AUTHORIZE_PATH, async function parseAuthorization(c, next) {
    const oauth = (await fullAuthorizationServer(requestOrigin(c.req.url), c.env)).getOAuthApi(c.env);
    try {
      c.set("authRequest", await oauth.parseAuthRequest(c.req.raw));
    } catch (error) {
      return refused(c, undefined, error);
    }
    c.set("oauth", oauth);
    return next();
  });
  page.use(AUTHORIZE_PATH, requirePageSignIn());
  page.get(AUTHORIZE_PATH, showConsent);
  page.post(AUTHORIZE_PATH, decide);
  return page;
}
