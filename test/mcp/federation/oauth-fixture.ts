import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { PageClient } from "../../approvals-page/page-client.ts";
import { OAUTH_MCP_CONTROL_HOST, TEST_ADMIN_TOKEN, TEST_MCP_TOKEN_KEY } from "../../support/test-env.ts";

/**
 * A fresh OAuth-protected MCP server on loopback (test/support/oauth-mcp-server.ts): its port, an
 * env that may reach it and holds MCP_TOKEN_KEY, and its control endpoint (read, or POST to change
 * how it behaves); `C` is the shape a test reads back from it.
 */
export interface OAuthFixture<C> {
  port: number;
  env: Env;
  control: (body?: Record<string, unknown>) => Promise<C>;
}

export async function startOAuthFixture<C>(): Promise<OAuthFixture<C>> {
  const { port } = (await (await fetch(`http://${OAUTH_MCP_CONTROL_HOST}/start`)).json()) as { port: number };
  return {
    port,
    env: { ...env, OUTBOUND_ALLOW: `127.0.0.1:${port}`, MCP_TOKEN_KEY: TEST_MCP_TOKEN_KEY } as Env,
    control: async (body) => {
      const res = await fetch(
        `http://127.0.0.1:${port}/control`,
        body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
      return (await res.json()) as C;
    },
  };
}

/** Serves a request on the app under test with the fixture's env. */
export type AppFetch = (request: Request | string, init?: RequestInit) => Promise<Response>;

/**
 * Adds the fixture's server with `config` (name, auth_mode, ...) through the API as the admin,
 * and signs toolgate in to it once, as an admin's browser would (the shared sign-in lists the
 * tools). `origin` is where toolgate is reached: the client registered there is reused for
 * per-user connections, so their links must be made on the same origin.
 */
export async function addSignedInServer<C>(
  fixture: OAuthFixture<C>,
  serve: AppFetch,
  config: Record<string, unknown>,
  origin = "https://toolgate.test",
): Promise<void> {
  const res = await serve(`${origin}/v1/mcp-servers`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${fixture.port}/mcp`, ...config }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const signInUrl = new URL(((await res.json()) as { auth: { sign_in_url: string } }).auth.sign_in_url);
  const admin = new PageClient(origin, (page) => serve(page));
  const opened = await admin.get(signInUrl.pathname + signInUrl.search);
  const approved = await fetch(opened.headers.get("location") ?? "", { redirect: "manual" });
  const callback = new URL(approved.headers.get("location") ?? "");
  expect((await admin.get(callback.pathname + callback.search)).status).toBe(200);
}
