/**
 * An OAuth client and the person who consents, as far as the OAuth tests need them, against the
 * real Worker on the MCP door's loopback origin: registration, PKCE, the consent page through
 * the approvals page's sign-in, and the token endpoint.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { csrfOf, PageClient } from "../approvals-page/page-client.ts";
import { MCP_BASE } from "../mcp/helpers.ts";
import { createKey } from "../support/create-key.ts";

export const REDIRECT_URI = "https://app.example/callback";

/** A PKCE pair (RFC 7636, S256). */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = `${crypto.randomUUID()}${crypto.randomUUID()}`.replaceAll("-", "");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  return { verifier, challenge };
}

export function send(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(`${MCP_BASE}${path}`, { redirect: "manual", ...init });
}

/** Registers a public client (RFC 7591); returns its client_id. */
export async function register(body: Record<string, unknown> = {}): Promise<string> {
  const response = await send("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test App",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      ...body,
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The query of an authorization request; `overrides` replace or (with undefined) drop parameters. */
export function authorizeQuery(clientId: string, challenge: string, overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "state-123",
    resource: `${MCP_BASE}/mcp`,
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return query.toString();
}

/** A browser signed in to the approvals page with a new key of `role`. */
export async function signedInBrowser(role: "approver" | "admin" | "agent" = "approver", toolsets?: string[]): Promise<PageClient> {
  const key = await createKey({ name: `oauth-${role}-${crypto.randomUUID()}`, role, ...(toolsets === undefined ? {} : { toolsets }) });
  const browser = new PageClient(MCP_BASE);
  expect((await browser.signIn(key.key)).status).toBe(303);
  return browser;
}

/** The consent form's handle on the last page. */
export function handleOf(html: string): string {
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  if (handle === undefined) throw new Error(`no consent form in the page:\n${html.slice(0, 800)}`);
  return handle;
}

/** Opens the consent page and answers it; returns the redirect's Location. */
export async function consent(browser: PageClient, query: string, decision: "approve" | "deny", toolsets: string[]): Promise<URL> {
  const page = await browser.get(`/oauth/authorize?${query}`);
  expect(page.status, browser.lastPage.slice(0, 500)).toBe(200);
  const form = new URLSearchParams({ csrf: csrfOf(browser.lastPage), handle: handleOf(browser.lastPage), decision });
  for (const name of toolsets) form.append("toolset", name);
  const answer = await browser.post("/oauth/authorize", form);
  expect(answer.status, browser.lastPage.slice(0, 500)).toBe(302);
  return new URL(answer.headers.get("location") ?? "");
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
  resource?: string;
}

/** POSTs a form to the token endpoint. */
export function tokenRequest(fields: Record<string, string>): Promise<Response> {
  return send("/oauth/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
}

/** Register, consent with `toolsets` (at `resource`'s door), exchange the code: a client holding tokens. */
export async function signedInClient(toolsets: string[], resource = `${MCP_BASE}/mcp`): Promise<{ clientId: string; tokens: TokenResponse }> {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const browser = await signedInBrowser("admin");
  const location = await consent(browser, authorizeQuery(clientId, challenge, { resource }), "approve", toolsets);
  const code = location.searchParams.get("code") ?? "";
  const response = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier });
  expect(response.status, await response.clone().text()).toBe(200);
  return { clientId, tokens: (await response.json()) as TokenResponse };
}
