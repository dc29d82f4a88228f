import { expect } from "vitest";
import { SELF } from "cloudflare:test";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

/** Sends a JSON request to the Worker under test, through its real fetch handler. */
export function api(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const { method = init.body === undefined ? "GET" : "POST", body } = init;
  // The bootstrap admin token unless the test sends its own Authorization.
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...init.headers };
  return SELF.fetch(`https://toolgate.test${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as T;
}
