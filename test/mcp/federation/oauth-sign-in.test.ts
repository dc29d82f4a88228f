/**
 * toolgate as an OAuth client of a remote MCP server that requires sign-in, end to end against a
 * loopback server made of the SDK's server-side auth helpers (test/support/oauth-mcp-server.ts):
 * add the server → it needs sign-in and the answer carries a link → the link, the authorization
 * server and the callback (followed here as a browser would) → tools federated and callable →
 * an expired token is refreshed → a refused refresh marks the server as needing sign-in again →
 * a second sign-in reuses the registration. And every way a callback can be wrong.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.ts";
import { testParts } from "../../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { openaiCall } from "../../support/tool-calls.ts";
import { type OAuthFixture, startOAuthFixture } from "./oauth-fixture.ts";

const app = createApp(testParts);

type Fixture = OAuthFixture<Record<string, number | boolean>>;
const startFixture = () => startOAuthFixture<Record<string, number | boolean>>();

function api(fixtureEnv: Env, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  const { method = init.body === undefined ? "GET" : "POST" } = init;
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers };
  return Promise.resolve(
    app.request(`https://toolgate.test${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }, fixtureEnv),
  );
}

/** A browser's request: no toolgate key, only the cookie it holds. */
function browser(fixtureEnv: Env, url: string, cookie?: string): Promise<Response> {
  return Promise.resolve(app.request(url, cookie === undefined ? {} : { headers: { cookie } }, fixtureEnv));
}

interface Auth {
  mode: string;
  status: string;
  reason: string | null;
  sign_in_url: string | null;
  signed_in_by: string | null;
}

/** Opens the sign-in link and lets the authorization server approve; returns the callback URL and the cookie. */
async function authorize(fixture: Fixture, signInUrl: string): Promise<{ callback: string; cookie: string }> {
  const opened = await browser(fixture.env, signInUrl);
  expect(opened.status).toBe(302);
  const setCookie = opened.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/^__Host-toolgate-mcp-[0-9a-f]{16}=[\w-]+; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax/);
  const authorizeUrl = new URL(opened.headers.get("location") ?? "");
  expect(authorizeUrl.origin).toBe(`http://127.0.0.1:${fixture.port}`);
  expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizeUrl.searchParams.get("resource")).toBe(`http://127.0.0.1:${fixture.port}/mcp`);
  const approved = await fetch(authorizeUrl, { redirect: "manual" });
  expect(approved.status).toBe(302);
  return { callback: approved.headers.get("location") ?? "", cookie: setCookie.split(";")[0] ?? "" };
}

async function addServer(fixture: Fixture, name: string): Promise<Auth> {
  const res = await api(fixture.env, "/v1/mcp-servers", { body: { name, url: `http://127.0.0.1:${fixture.port}/mcp` } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { auth: Auth }).auth;
}

async function callTool(fixture: Fixture, name: string, args: unknown): Promise<{ status: string; error_code: string | null; message: { content: string } }> {
  const res = await api(fixture.env, "/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", name, args)] } });
  const [result] = ((await res.json()) as { results: { status: string; error_code: string | null; message: { content: string } }[] }).results;
  if (result === undefined) throw new Error("no result");
  return result;
}

async function serverAuth(fixture: Fixture, name: string): Promise<Auth> {
  return ((await (await api(fixture.env, `/v1/mcp-servers/${name}`)).json()) as { auth: Auth }).auth;
}

describe("signing toolgate in to a remote MCP server that requires OAuth", () => {
  it("adds the server, signs in once, calls its tools, refreshes an expired token, and asks for sign-in again when refresh is refused", async () => {
    const fixture = await startFixture();
    const added = await addServer(fixture, "oauthfix");
    expect(added).toMatchObject({ mode: "oauth", status: "needs_sign_in" });
    expect(added.sign_in_url).toMatch(/^https:\/\/toolgate\.test\/mcp-oauth\/start\?state=[\w-]{43}$/);
    expect(await toolsOf(fixture, "oauthfix")).toEqual([]);

    const { callback, cookie } = await authorize(fixture, added.sign_in_url ?? "");
    expect(callback).toMatch(/^https:\/\/toolgate\.test\/mcp-oauth\/callback\?code=/);
    const finished = await browser(fixture.env, callback, cookie);
    expect(finished.status, await finished.clone().text()).toBe(200);
    expect(await finished.json()).toMatchObject({
      server: "oauthfix",
      status: "signed_in",
      signed_in_by: "admin-token",
      tools: ["mcp__oauthfix__whoami", "mcp__oauthfix__add"],
      last_error: null,
    });
    expect(await serverAuth(fixture, "oauthfix")).toMatchObject({ mode: "oauth", status: "signed_in", signed_in_by: "admin-token", reason: null });

    // The token is sealed at rest: neither it nor the client secret appears in KV in clear.
    const stored = (await env.KV.get("mcp:oauth:oauthfix")) ?? "";
    expect(stored).toContain('"status":"signed_in"');
    expect(stored).not.toMatch(/access|refresh|client_secret/i);

    expect(await callTool(fixture, "mcp__oauthfix__add", { a: 2, b: 3 })).toMatchObject({ status: "ok", message: { content: expect.stringContaining("5") } });

    // Every token issued so far stops working: the call gets 401, toolgate refreshes and repeats it.
    await fixture.control({ expireAccessTokens: true });
    expect(await callTool(fixture, "mcp__oauthfix__add", { a: 20, b: 22 })).toMatchObject({
      status: "ok",
      message: { content: expect.stringContaining("42") },
    });
    expect(await fixture.control()).toMatchObject({ refreshes: 1, registrations: 1 });

    // The authorization server refuses the refresh: the call fails naming the sign-in, and the server needs one.
    await fixture.control({ expireAccessTokens: true, refuseRefresh: true });
    const refused = await callTool(fixture, "mcp__oauthfix__add", { a: 1, b: 1 });
    expect(refused.status).toBe("error");
    expect(refused.message.content).toContain("sign in again: POST /v1/mcp-servers/oauthfix/sign-in");
    const after = await serverAuth(fixture, "oauthfix");
    expect(after).toMatchObject({ mode: "oauth", status: "needs_sign_in" });
    expect(after.reason).toContain("invalid_grant");
    expect(await env.KV.get("mcp:oauth:oauthfix")).toContain('"status":"needs_sign_in"');

    // Signing in again works, with the client registered the first time.
    await fixture.control({ refuseRefresh: false });
    const again = await api(fixture.env, "/v1/mcp-servers/oauthfix/sign-in", { method: "POST" });
    expect(again.status).toBe(201);
    const link = ((await again.json()) as { sign_in_url: string }).sign_in_url;
    const second = await authorize(fixture, link);
    expect((await browser(fixture.env, second.callback, second.cookie)).status).toBe(200);
    expect(await callTool(fixture, "mcp__oauthfix__whoami", {})).toMatchObject({ status: "ok" });
    expect(await fixture.control()).toMatchObject({ registrations: 1, authorizations: 2 });
    expect((await api(fixture.env, "/v1/mcp-servers/oauthfix", { method: "DELETE" })).status).toBe(204);
    expect(await env.KV.get("mcp:oauth:oauthfix")).toBeNull();
  });

  it("refreshes a token that is about to expire before sending it, without waiting for a 401", async () => {
    const fixture = await startFixture();
    // Tokens that live 10 s: inside the 30 s margin, so each is refreshed before use.
    await fixture.control({ accessTtlSeconds: 10 });
    const added = await addServer(fixture, "oauthshort");
    const { callback, cookie } = await authorize(fixture, added.sign_in_url ?? "");
    expect((await browser(fixture.env, callback, cookie)).status).toBe(200);
    const before = (await fixture.control()).refreshes;
    expect(await callTool(fixture, "mcp__oauthshort__add", { a: 1, b: 2 })).toMatchObject({ status: "ok" });
    expect((await fixture.control()).refreshes).toBeGreaterThan(Number(before));
    expect((await serverAuth(fixture, "oauthshort")).status).toBe("signed_in");
  });

  it("refreshes once when several requests find the token due at the same moment, and stays signed in", async () => {
    const fixture = await startFixture();
    // After a sign-in the tool list is followed by three lists sent at once, each finding the
    // 10 s token inside the margin. Refresh tokens rotate, so a second refresh with the same one
    // is refused; whether that refusal then marked the server as needing sign-in depended on
    // whether the first refresh was already stored, which a loaded machine now and then lost.
    // The fixture answers a refresh 300 ms after spending its token, so a second one is always refused.
    await fixture.control({ accessTtlSeconds: 10, refreshDelayMs: 300 });
    const added = await addServer(fixture, "oauthburst");
    const { callback, cookie } = await authorize(fixture, added.sign_in_url ?? "");
    expect((await browser(fixture.env, callback, cookie)).status).toBe(200);
    expect(await serverAuth(fixture, "oauthburst")).toMatchObject({ status: "signed_in", reason: null });
    expect(await fixture.control()).toMatchObject({ refusedRefreshes: 0 });
    expect(await callTool(fixture, "mcp__oauthburst__add", { a: 1, b: 2 })).toMatchObject({ status: "ok" });
  });

  it("refuses a callback with an unknown state", async () => {
    const fixture = await startFixture();
    const res = await browser(fixture.env, "https://toolgate.test/mcp-oauth/callback?code=abc&state=forged");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "unknown_state" });
  });

  it("refuses a callback from a browser that did not open the link, and a link opened twice", async () => {
    const fixture = await startFixture();
    const added = await addServer(fixture, "oauthcsrf");
    const { callback } = await authorize(fixture, added.sign_in_url ?? "");
    const reopened = await browser(fixture.env, added.sign_in_url ?? "");
    expect(await reopened.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "link_used" });
    const noCookie = await browser(fixture.env, callback);
    expect(noCookie.status).toBe(400);
    expect(await noCookie.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "browser_mismatch" });
    const wrongCookie = await browser(fixture.env, callback, `${new URL(callback).searchParams.get("state") ?? ""}=x`);
    expect(await wrongCookie.json()).toMatchObject({ reason: "browser_mismatch" });
    expect(await serverAuth(fixture, "oauthcsrf")).toMatchObject({ status: "needs_sign_in" });
  });

  it("names a callback without a code, and the authorization server's access_denied", async () => {
    const fixture = await startFixture();
    const added = await addServer(fixture, "oauthbad");
    const { callback, cookie } = await authorize(fixture, added.sign_in_url ?? "");
    const withoutCode = new URL(callback);
    withoutCode.searchParams.delete("code");
    const missing = await browser(fixture.env, withoutCode.href, cookie);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "missing_code" });
    // The state is spent by the first callback, whatever it carried.
    expect(await (await browser(fixture.env, callback, cookie)).json()).toMatchObject({ reason: "unknown_state" });

    await fixture.control({ deny: true });
    const link = ((await (await api(fixture.env, "/v1/mcp-servers/oauthbad/sign-in", { method: "POST" })).json()) as { sign_in_url: string }).sign_in_url;
    const denied = await authorize(fixture, link);
    const res = await browser(fixture.env, denied.callback, denied.cookie);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; reason: string };
    expect(body).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "denied" });
    expect(body.error).toContain("access_denied: the person declined");
  });

  it("repeats at most 300 characters of the callback's error and its description", async () => {
    const fixture = await startFixture();
    const added = await addServer(fixture, "oauthlong");
    const { callback, cookie } = await authorize(fixture, added.sign_in_url ?? "");
    const forged = new URL(callback);
    forged.searchParams.delete("code");
    forged.searchParams.set("error", "e".repeat(5000));
    forged.searchParams.set("error_description", "d".repeat(5000));
    const res = await browser(fixture.env, forged.href, cookie);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; reason: string };
    expect(body.reason).toBe("denied");
    expect(body.error).toContain(`answered ${"e".repeat(300)}: ${"d".repeat(300)}.`);
    expect(body.error).not.toContain("e".repeat(301));
  });

  it("refuses to start a sign-in without MCP_TOKEN_KEY, saying how to set it", async () => {
    const fixture = await startFixture();
    const { MCP_TOKEN_KEY: _key, ...withoutKey } = fixture.env;
    await addServer({ ...fixture, env: withoutKey as Env }, "oauthnokey");
    const res = await api(withoutKey as Env, "/v1/mcp-servers/oauthnokey/sign-in", { method: "POST" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; reason: string };
    expect(body.reason).toBe("not_configured");
    expect(body.error).toContain("MCP_TOKEN_KEY");
  });
});

async function toolsOf(fixture: Fixture, server: string): Promise<string[]> {
  const res = await api(fixture.env, `/v1/mcp-servers/${server}`);
  return ((await res.json()) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}
