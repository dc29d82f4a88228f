/**
 * The MCP servers page with a server that needs toolgate to sign in: a loopback MCP server that
 * answers 401 with protected resource metadata (test/support/oauth-mcp-server.ts, the only
 * outside party) is added, the page shows its state and a sign-in button, the button goes
 * through POST /v1/mcp-servers/{name}/sign-in and its link, opened as a browser would, redirects
 * to the authorization server with PKCE. Approvers and agents get none of it.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { OAUTH_MCP_CONTROL_HOST, TEST_ADMIN_TOKEN, TEST_MCP_TOKEN_KEY } from "../support/test-env.ts";
import { adminSignIn, csrfOf, ORIGIN, PageClient } from "./admin-client.ts";

const app = createApp(testParts);
const { port } = (await (await fetch(`http://${OAUTH_MCP_CONTROL_HOST}/start`)).json()) as { port: number };
const fixtureEnv = { ...env, OUTBOUND_ALLOW: `127.0.0.1:${port}`, MCP_TOKEN_KEY: TEST_MCP_TOKEN_KEY } as Env;
const name = `signin-${crypto.randomUUID().slice(0, 8)}`;

/** A browser on the console, against the app with the fixture's outbound allowance. */
const browser = () => new PageClient(ORIGIN, (request) => Promise.resolve(app.fetch(request, fixtureEnv)));

async function signedIn(role: "admin" | "approver"): Promise<PageClient> {
  const key = await createKey({ name: `signin-page-${role}-${crypto.randomUUID()}`, role });
  const client = browser();
  // The console's sign-in refuses an approver; it signs in on the approvals page, which opens /admin as far as its role may.
  expect((role === "admin" ? await adminSignIn(client, key.key) : await client.signIn(key.key)).status).toBe(303);
  return client;
}

const cardOf = (page: string) => new RegExp(`<section[^>]*data-server="${name}"[\\s\\S]*?</section>`).exec(page)?.[0] ?? "";

// Added through the API, not the console's form: the form's answer shows a link at once, and
// this test is about the list a person comes back to later.
const added = await app.request(
  `${ORIGIN}/v1/mcp-servers`,
  {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name, url: `http://127.0.0.1:${port}/mcp` }),
  },
  fixtureEnv,
);
if (added.status !== 201) throw new Error(`adding the OAuth server answered ${added.status}: ${await added.text()}`);

afterAll(async () => {
  await app.request(`${ORIGIN}/v1/mcp-servers/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }, fixtureEnv);
});

describe("a remote MCP server that needs sign-in, on the MCP servers page", () => {
  it("shows the state and a button that starts the API's sign-in, whose link redirects to the authorization server with PKCE", async () => {
    const client = await signedIn("admin");
    expect((await client.get("/admin/mcp-servers")).status).toBe(200);
    const card = cardOf(client.lastPage);
    expect(card).toContain("needs sign-in");
    expect(card).toContain(`action="/admin/mcp-servers/${name}/sign-in"`);
    expect(card).toContain(`aria-label="Start sign-in ${name}"`);
    // No tools until someone signs in.
    expect(card).not.toContain("data-tool=");

    const started = await client.post(`/admin/mcp-servers/${name}/sign-in`, { csrf: csrfOf(client.lastPage) });
    expect(started.status).toBe(200);
    const link = /<a href="([^"]+)" rel="noreferrer" data-sign-in="true">/.exec(client.lastPage)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(link).toMatch(new RegExp(`^${ORIGIN}/mcp-oauth/start\\?state=[\\w-]{43}$`));

    // The link is the browser side of the same flow the JSON API starts: no console cookie needed.
    const opened = await app.request(link, {}, fixtureEnv);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("set-cookie") ?? "").toMatch(/^__Host-toolgate-mcp-[0-9a-f]{16}=/);
    const authorize = new URL(opened.headers.get("location") ?? "");
    expect(authorize.origin).toBe(`http://127.0.0.1:${port}`);
    expect(authorize.searchParams.get("response_type")).toBe("code");
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/mcp-oauth/callback`);
    expect(authorize.searchParams.get("state")).toBe(new URL(link).searchParams.get("state"));
    // A second opening of the same link is refused: it is one person's, once.
    expect((await app.request(link, {}, fixtureEnv)).status).toBe(400);
  });

  it("refuses an approver the page and the sign-in, and an agent the console", async () => {
    const approver = await signedIn("approver");
    expect((await approver.get("/admin/mcp-servers")).status).toBe(403);
    expect(approver.lastPage).not.toContain(`/admin/mcp-servers/${name}/sign-in`);
    const refused = await approver.post(`/admin/mcp-servers/${name}/sign-in`, { csrf: csrfOf(approver.lastPage) });
    expect(refused.status).toBe(403);
    expect(approver.lastPage).not.toContain("/mcp-oauth/start");

    const agent = await createKey({ name: `signin-agent-${crypto.randomUUID()}`, role: "agent" });
    const client = browser();
    expect((await adminSignIn(client, agent.key)).status).toBe(403);
    expect((await client.get("/admin/mcp-servers")).status).toBe(401);
    expect(client.lastPage).not.toContain(name);
  });
});
