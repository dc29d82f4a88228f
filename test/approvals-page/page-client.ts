/**
 * A person's browser, as far as the page tests need one: a cookie jar, same-origin form posts
 * and the CSRF token read from the last page, all against the real Worker.
 */
import { exports } from "cloudflare:workers";

export const ORIGIN = "https://toolgate.test";
/** The one sign-in cookie of /approvals, /admin and /chat, with its `__Host-` prefix. */
export const SESSION_COOKIE = "__Host-toolgate-session";

/** The value of the CSRF field in a page (every form of a page carries the same token). */
export function csrfOf(html: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error(`no CSRF field in the page:\n${html.slice(0, 500)}`);
  return token;
}

/** The sign-in's CSRF token, read from the sign-out form every signed-in page has. */
export async function signInCsrf(client: PageClient): Promise<string> {
  await client.get("/approvals/no-such-page/x");
  return csrfOf(client.lastPage);
}

export class PageClient {
  readonly cookies = new Map<string, string>();

  /**
   * `origin`: where the page is served (the OAuth tests use the MCP door's loopback origin).
   * `send`: the Worker to ask; a test that must share module state (the registry) passes its own app.
   */
  constructor(
    readonly origin = ORIGIN,
    readonly send: (request: Request) => Promise<Response> = (request) => exports.default.fetch(request),
  ) {}
  /** The HTML of the last page fetched. */
  lastPage = "";

  async get(path: string): Promise<Response> {
    return this.#send(path, { method: "GET" });
  }

  /** Posts a form as the page's own forms do (same origin); `headers` may override that. */
  async post(
    path: string,
    fields: Record<string, string> | URLSearchParams,
    headers: Record<string, string> = { origin: this.origin, "sec-fetch-site": "same-origin" },
  ): Promise<Response> {
    return this.#send(path, { method: "POST", body: new URLSearchParams(fields), headers });
  }

  /** Opens the sign-in page and signs in with `key`; returns the sign-in POST's response. */
  async signIn(key: string, next?: string): Promise<Response> {
    await this.get("/approvals/sign-in");
    return this.post("/approvals/sign-in", { key, csrf: csrfOf(this.lastPage), ...(next === undefined ? {} : { next }) });
  }

  async #send(path: string, init: { method: string; body?: URLSearchParams; headers?: Record<string, string> }): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await this.send(new Request(`${this.origin}${path}`, { method: init.method, headers, body: init.body, redirect: "manual" }));
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const [name = "", value = ""] = pair.split("=");
      if (/max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    this.lastPage = response.headers.get("content-type")?.startsWith("text/html") === true ? await response.clone().text() : "";
    return response;
  }
}
