/**
 * The people of the per-user connection tests (MCP servers and OpenAPI sources alike): a key
 * with its browser signed in to the chat page, its tool calls through `/v1/tool-calls`, the link
 * a CONNECTION_REQUIRED result names, and the rows D1 holds for it.
 */
import { env as bindings } from "cloudflare:workers";
import { expect } from "vitest";
import { createApp } from "../../../src/http/app.ts";
import { csrfOf, PageClient } from "../../approvals-page/page-client.ts";
import { createKey } from "../../support/create-key.ts";
import { testParts } from "../../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { openaiCall } from "../../support/tool-calls.ts";

export const app = createApp(testParts);

/** A request to the app as `bearer` (the admin token by default), under `env`. */
export function apiRequest(env: Env, path: string, init: { method?: string; body?: unknown; bearer?: string } = {}): Promise<Response> {
  const { method = init.body === undefined ? "GET" : "POST" } = init;
  const headers = { authorization: `Bearer ${init.bearer ?? TEST_ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) };
  return Promise.resolve(
    app.request(`https://toolgate.test${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }, env),
  );
}

/** A person: their key, and their browser signed in to the chat page with it. */
export interface Person {
  keyId: string;
  key: string;
  browser: PageClient;
}

export async function signedInPerson(env: Env, label: string): Promise<Person> {
  const key = await createKey({ name: `conn-${label}-${crypto.randomUUID()}`, role: "agent" });
  const browser = new PageClient(undefined, (request) => Promise.resolve(app.request(request, undefined, env)));
  await browser.get("/chat/sign-in");
  expect((await browser.post("/chat/sign-in", { key: key.key, csrf: csrfOf(browser.lastPage) })).status).toBe(303);
  return { keyId: key.id, key: key.key, browser };
}

export interface Envelope {
  error: string;
  error_code: string;
  connection?: { server: string; url: string | null; expires_at: string | null };
}

export interface CallResult {
  status: string;
  error_code: string | null;
  content: string;
}

/** One tool call as `who`, through `/v1/tool-calls`. */
export async function callAs(env: Env, who: Person, tool: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  const res = await apiRequest(env, "/v1/tool-calls", { bearer: who.key, body: { tool_calls: [openaiCall("c1", tool, args)] } });
  expect(res.status, await res.clone().text()).toBe(200);
  const [result] = ((await res.json()) as { results: { status: string; error_code: string | null; message: { content: string } }[] }).results;
  if (result === undefined) throw new Error("no result");
  return { status: result.status, error_code: result.error_code, content: result.message.content };
}

/** The one-time link a CONNECTION_REQUIRED result names. */
export function linkOf(result: Pick<CallResult, "error_code" | "content">): string {
  expect(result.error_code, result.content).toBe("CONNECTION_REQUIRED");
  const envelope = JSON.parse(result.content) as Envelope;
  expect(envelope.connection?.url).toMatch(/^https:\/\/toolgate\.test\/chat\/connect\/[\w-]{43}$/);
  return envelope.connection?.url ?? "";
}

/** A principal's connection rows. */
export const rowsOf = async (principal: string): Promise<{ server: string; status: string; grant_sealed: string }[]> =>
  (
    await bindings.DB.prepare("SELECT server, status, grant_sealed FROM mcp_connections WHERE principal = ?")
      .bind(principal)
      .all<{ server: string; status: string; grant_sealed: string }>()
  ).results;
