/** Requests to the Worker under test, through its real fetch handler (the main module's default export). */
import { exports } from "cloudflare:workers";
import { TEST_ADMIN_TOKEN } from "./test-env.ts";

export interface ApiInit {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Something that sends an API request the way `api` does: `api` itself, or a test's own app. */
export type ApiSend = (path: string, init: ApiInit) => Promise<Response>;

/** Sends a JSON request to the Worker under test, through its real fetch handler. */
export function api(path: string, init: ApiInit = {}): Promise<Response> {
  const { method = init.body === undefined ? "GET" : "POST", body } = init;
  // The bootstrap admin token unless the test sends its own Authorization.
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...init.headers };
  return exports.default.fetch(`https://toolgate.test${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}
