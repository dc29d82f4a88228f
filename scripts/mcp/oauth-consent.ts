/**
 * A person consenting on toolgate's OAuth page, from Node: what the SDK OAuth test and the
 * bench's OAuth scenario need (a browser test drives the real page in Chromium instead). Signs in
 * with an approver key through the approvals sign-in, ticks the toolsets and allows, keeping the
 * page's cookies and sending same-origin form posts as a browser would.
 */
import { createHash, randomBytes } from "node:crypto";

/** A cookie jar and same-origin form posts: as much of a browser as the forms need. */
class FormBrowser {
  readonly #cookies = new Map<string, string>();
  readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  async send(path: string, form?: URLSearchParams): Promise<{ response: Response; html: string }> {
    const headers = new Headers({ cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ") });
    if (form !== undefined) {
      headers.set("origin", this.origin);
      headers.set("content-type", "application/x-www-form-urlencoded");
    }
    const response = await fetch(new URL(path, this.origin), { method: form === undefined ? "GET" : "POST", headers, body: form, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [name = "", value = ""] = (line.split(";")[0] ?? "").split("=");
      if (value === "" || /max-age=0/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return { response, html: response.headers.get("content-type")?.startsWith("text/html") === true ? await response.text() : "" };
  }
}

function field(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];
  if (value === undefined) throw new Error(`oauth-consent: no ${name} field in the page:\n${html.slice(0, 600)}`);
  return value.replaceAll("&amp;", "&");
}

/**
 * Opens `authorizationUrl`, signs in with `approverKey` when asked, consents to `toolsets` and
 * returns where the page redirects (the client's redirect URI with `code` and `state`). Throws,
 * naming the step, when a page answers otherwise.
 */
export async function consentAs(approverKey: string, authorizationUrl: URL, toolsets: readonly string[]): Promise<URL> {
  const browser = new FormBrowser(authorizationUrl.origin);
  const next = `${authorizationUrl.pathname}${authorizationUrl.search}`;
  let page = await browser.send(next);
  if (page.response.status === 401) {
    const signIn = new URLSearchParams({ csrf: field(page.html, "csrf"), next: field(page.html, "next"), key: approverKey });
    const signedIn = await browser.send("/approvals/sign-in", signIn);
    if (signedIn.response.status !== 303) throw new Error(`oauth-consent: sign-in answered ${signedIn.response.status}`);
    page = await browser.send(signedIn.response.headers.get("location") ?? next);
  }
  if (page.response.status !== 200) throw new Error(`oauth-consent: the consent page answered ${page.response.status}:\n${page.html.slice(0, 600)}`);
  const form = new URLSearchParams({ csrf: field(page.html, "csrf"), handle: field(page.html, "handle"), decision: "approve" });
  for (const name of toolsets) form.append("toolset", name);
  const answer = await browser.send("/oauth/authorize", form);
  const location = answer.response.headers.get("location");
  if (answer.response.status !== 302 || location === null)
    throw new Error(`oauth-consent: allowing answered ${answer.response.status}:\n${answer.html.slice(0, 600)}`);
  return new URL(location);
}

/**
 * The whole flow as a client runs it: register a public client, authorize with PKCE (S256) at
 * `/mcp`, consent as `approverKey` to `toolsets`, exchange the code. Returns the token response.
 */
export async function oauthTokens(
  origin: string,
  approverKey: string,
  toolsets: readonly string[],
): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const redirectUri = "http://127.0.0.1:1/callback";
  const registered = await fetch(`${origin}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "toolgate script",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
  if (registered.status !== 201) throw new Error(`oauth-consent: registration answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
    resource: `${origin}/mcp`,
  });
  const landed = await consentAs(approverKey, new URL(`/oauth/authorize?${query}`, origin), toolsets);
  const token = await fetch(`${origin}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: landed.searchParams.get("code") ?? "",
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  if (token.status !== 200) throw new Error(`oauth-consent: the token endpoint answered ${token.status}: ${await token.text()}`);
  return (await token.json()) as { access_token: string; refresh_token: string; expires_in: number };
}
