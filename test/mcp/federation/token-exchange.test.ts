/**
 * `auth_mode: "token_exchange"` (RFC 8693, issue 30), end to end: MCP clients signed in to
 * toolgate through its OAuth provider call a remote MCP server whose authorization server (the
 * loopback one of test/support/oauth-mcp-server.ts, with the token exchange grant added to the
 * SDK's router) exchanges each caller's toolgate token for a token of its own. The upstream
 * records the token of every call: each principal's call carries the token issued for its own
 * subject token, kept per principal until shortly before it expires. Then every way the exchange
 * can fail ends as a structured error.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../../src/http/app.ts";
import { signedInClient } from "../../oauth/oauth-client.ts";
import { createKey } from "../../support/create-key.ts";
import { testParts } from "../../support/dispatch.ts";
import { type ExchangeRecord, TEST_ADMIN_TOKEN, TEST_EXCHANGE_CLIENT } from "../../support/test-env.ts";
import { openaiCall } from "../../support/tool-calls.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { MCP_BASE } from "../helpers.ts";
import { type AppFetch, addSignedInServer, type OAuthFixture, startOAuthFixture } from "./oauth-fixture.ts";

const app = createApp(testParts);
const SECRET_VAR = "XCH_CLIENT_SECRET";

type Control = { received: { user: string; token: string }[]; exchanges: ExchangeRecord[] };
type Fixture = OAuthFixture<Control>;

/** A fixture whose env holds toolgate's client secret at the authorization server. */
async function startFixture(): Promise<Fixture> {
  const fixture = await startOAuthFixture<Control>();
  return { ...fixture, env: { ...fixture.env, [SECRET_VAR]: TEST_EXCHANGE_CLIENT.secret } as Env };
}

const serveOn =
  (fixture: Fixture): AppFetch =>
  (input, init) =>
    Promise.resolve(app.request(input, init, fixture.env));

function request(fixture: Fixture, url: string, init: { method?: string; body?: unknown; bearer?: string; headers?: Record<string, string> } = {}) {
  const { method = init.body === undefined ? "GET" : "POST" } = init;
  const headers = {
    authorization: `Bearer ${init.bearer ?? TEST_ADMIN_TOKEN}`,
    ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    ...init.headers,
  };
  return Promise.resolve(app.request(url, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }, fixture.env));
}

/**
 * Adds a token_exchange server `name`, signs toolgate in once (the shared sign-in lists the
 * tools) and makes a custom toolset of its tools for OAuth clients to be granted.
 */
async function addExchangeServer(fixture: Fixture, name: string, exchange: Record<string, unknown> = {}): Promise<string> {
  await addSignedInServer(fixture, serveOn(fixture), {
    name,
    auth_mode: "token_exchange",
    token_exchange: { client_id: TEST_EXCHANGE_CLIENT.id, client_secret: { secret: SECRET_VAR }, audience: "oauth-fixture", ...exchange },
  });
  const toolset = `${name}-set`;
  const created = await request(fixture, "https://toolgate.test/v1/toolsets", {
    body: { name: toolset, description: "the exchange server's tools", tools: [`mcp__${name}__whoami`, `mcp__${name}__add`], includes: [] },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  return toolset;
}

/** An MCP client signed in to toolgate through OAuth, granted `toolset`: its access token. */
async function oauthCaller(toolset: string): Promise<string> {
  return (await signedInClient([toolset])).tokens.access_token;
}

interface CallResult {
  /** The JSON-RPC id, which the call's audit record names as its tool_call_id. */
  id: string;
  isError: boolean;
  text: string;
}

/** tools/call over /mcp (2025-06-18, no session) with `bearer`, an OAuth token or an API key. */
async function mcpCall(fixture: Fixture, bearer: string, tool: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  const id = `xch-${crypto.randomUUID()}`;
  const res = await request(fixture, `${MCP_BASE}/mcp`, {
    bearer,
    body: { jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: args } },
    headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] }; error?: unknown };
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return { id, isError: body.result?.isError === true, text: body.result?.content.map((block) => block.text).join("\n") ?? "" };
}

/** A failed call's text (the envelope's error, then its suggestion) and its code, as the audit records it. */
async function failureOf(result: CallResult): Promise<{ text: string; code: unknown }> {
  expect(result.isError).toBe(true);
  const [row] = await waitForAuditRows("tool_call_id = ?", [result.id]);
  return { text: result.text, code: row?.error_code };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("token exchange at a remote MCP server's authorization server", () => {
  it("refuses a token_exchange block without its client secret, or with a token endpoint that is not a URL, when it is saved", async () => {
    const fixture = await startFixture();
    for (const token_exchange of [{ client_id: "toolgate" }, { client_id: "toolgate", client_secret: { secret: SECRET_VAR }, token_endpoint: "not a url" }]) {
      const res = await request(fixture, "https://toolgate.test/v1/mcp-servers", {
        body: { name: "xchcheck", url: `http://127.0.0.1:${fixture.port}/mcp`, auth_mode: "token_exchange", token_exchange },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("token_exchange");
    }
  });

  it("sends each principal's own exchanged token, kept per principal until shortly before it expires", async () => {
    const fixture = await startFixture();
    const toolset = await addExchangeServer(fixture, "xch");
    const alice = await oauthCaller(toolset);
    const bob = await oauthCaller(toolset);

    expect(await mcpCall(fixture, alice, "mcp__xch__whoami")).toMatchObject({ isError: false, text: expect.stringContaining("user subject-0") });
    expect(await mcpCall(fixture, bob, "mcp__xch__whoami")).toMatchObject({ isError: false, text: expect.stringContaining("user subject-1") });
    expect(await mcpCall(fixture, alice, "mcp__xch__add", { a: 2, b: 3 })).toMatchObject({ isError: false, text: "5" });

    const { exchanges, received } = await fixture.control();
    // One exchange per principal: Alice's second call used her kept token. Each presented the caller's own toolgate token.
    expect(exchanges.map((e) => e.subject)).toEqual([alice, bob]);
    for (const exchange of exchanges) {
      expect(exchange).toMatchObject({
        subjectType: "urn:ietf:params:oauth:token-type:access_token",
        resource: `http://127.0.0.1:${fixture.port}/mcp`,
        audience: "oauth-fixture",
      });
    }
    const [forAlice, forBob] = exchanges.map((e) => e.issued);
    // The upstream received Alice's exchanged token on both her calls and Bob's on his; never a toolgate token, never the admin's.
    expect(received.map((r) => r.token)).toEqual([forAlice, forBob, forAlice]);
    expect(forAlice).not.toBe(forBob);
    expect(received.some((r) => r.user === "admin" || r.token === alice || r.token === bob)).toBe(false);

    // The audit names the credential's kind, never a token.
    const rows = await waitForAuditRows("tool IN (?, ?)", ["mcp__xch__whoami", "mcp__xch__add"], 3);
    expect(rows.map((row) => row.credential)).toEqual(["exchanged", "exchanged", "exchanged"]);
    for (const token of [alice, bob, forAlice, forBob]) expect(JSON.stringify(rows)).not.toContain(token);

    // A kept token the server no longer accepts (401) is exchanged again once, and the call goes through.
    await fixture.control({ expireAccessTokens: true });
    expect(await mcpCall(fixture, bob, "mcp__xch__whoami")).toMatchObject({ isError: false, text: expect.stringContaining("user subject-1") });
    const renewed = await fixture.control();
    expect(renewed.exchanges.map((e) => e.subject)).toEqual([alice, bob, bob]);
    // The refused attempt never reached the tool (the server records authorised calls only).
    expect(renewed.received.map((r) => r.token)).toEqual([forAlice, forBob, forAlice, renewed.exchanges.at(-1)?.issued]);

    // Never past its expiry: an hour on, within the margin before the token's hour ends, Alice's call exchanges again.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 3600_000 - 10_000);
    expect(await mcpCall(fixture, alice, "mcp__xch__whoami")).toMatchObject({ isError: false });
    const after = await fixture.control();
    expect(after.exchanges.map((e) => e.subject)).toEqual([alice, bob, bob, alice]);
    expect(after.received.at(-1)?.token).toBe(after.exchanges.at(-1)?.issued);
  });

  it("refuses an API key's call with a structured error saying the exchange needs an OAuth sign-in, and sends nothing", async () => {
    const fixture = await startFixture();
    await addExchangeServer(fixture, "xchkey");
    const key = await createKey({ name: `xch-key-${crypto.randomUUID()}`, role: "agent" });
    const res = await request(fixture, "https://toolgate.test/v1/tool-calls", {
      bearer: key.key,
      body: { tool_calls: [openaiCall("c1", "mcp__xchkey__whoami", {})] },
    });
    expect(res.status).toBe(200);
    const [result] = ((await res.json()) as { results: { status: string; error_code: string; message: { content: string } }[] }).results;
    expect(result).toMatchObject({ status: "error", error_code: "PERMISSION_DENIED" });
    const envelope = JSON.parse(result?.message.content ?? "{}") as { error: string; suggestion: string };
    expect(envelope.error).toContain("needs your toolgate OAuth sign-in");
    expect(envelope.error).toContain("API key");
    expect(envelope.suggestion).toContain("signed in to toolgate through OAuth");
    const { exchanges, received } = await fixture.control();
    expect(exchanges).toEqual([]);
    expect(received).toEqual([]);
  });

  it("ends a refused exchange as PERMISSION_DENIED that says to sign in again, and an HTML answer as UPSTREAM_ERROR; the call never reaches the server", async () => {
    const fixture = await startFixture();
    const toolset = await addExchangeServer(fixture, "xchbad");
    const alice = await oauthCaller(toolset);

    await fixture.control({ exchange: "refuse" });
    const refused = await failureOf(await mcpCall(fixture, alice, "mcp__xchbad__whoami"));
    expect(refused.code).toBe("PERMISSION_DENIED");
    expect(refused.text).toContain("invalid_grant");
    expect(refused.text).toContain("sign in to toolgate again");

    await fixture.control({ exchange: "html" });
    const html = await failureOf(await mcpCall(fixture, alice, "mcp__xchbad__whoami"));
    expect(html.code).toBe("UPSTREAM_ERROR");
    expect(html.text).toContain("not a JSON token response");

    const { exchanges, received } = await fixture.control();
    expect(exchanges).toHaveLength(2);
    expect(received).toEqual([]);

    // Once the authorization server issues again, the same caller's call goes through.
    await fixture.control({ exchange: "issue" });
    expect(await mcpCall(fixture, alice, "mcp__xchbad__whoami")).toMatchObject({ isError: false, text: expect.stringContaining("user subject-0") });
  });

  it("is unavailable when the metadata does not list the grant, the configuration names no client, or the outbound guard refuses the token endpoint", async () => {
    const fixture = await startFixture();
    const toolset = await addExchangeServer(fixture, "xchmeta");
    const alice = await oauthCaller(toolset);
    await fixture.control({ advertiseExchange: false });
    const unlisted = await failureOf(await mcpCall(fixture, alice, "mcp__xchmeta__whoami"));
    expect(unlisted.code).toBe("TOOL_UNAVAILABLE");
    expect(unlisted.text).toContain("does not list the token exchange grant");
    expect((await fixture.control()).exchanges).toEqual([]);

    // A server whose configuration names no client to exchange as.
    const bare = await startFixture();
    await addSignedInServer(bare, serveOn(bare), { name: "xchbare", auth_mode: "token_exchange" });
    const bareSet = "xchbare-set";
    const made = await request(bare, "https://toolgate.test/v1/toolsets", {
      body: { name: bareSet, description: "bare", tools: ["mcp__xchbare__whoami"], includes: [] },
    });
    expect(made.status).toBe(201);
    const unconfigured = await failureOf(await mcpCall(bare, await oauthCaller(bareSet), "mcp__xchbare__whoami"));
    expect(unconfigured.code).toBe("TOOL_UNAVAILABLE");
    expect(unconfigured.text).toContain("no token_exchange block");

    // A configured endpoint the SSRF guard refuses is the deployment's to fix, not a network fault.
    const guarded = await startFixture();
    const guardedSet = await addExchangeServer(guarded, "xchssrf", { token_endpoint: "http://10.0.0.1/token" });
    const refused = await failureOf(await mcpCall(guarded, await oauthCaller(guardedSet), "mcp__xchssrf__whoami"));
    expect(refused.code).toBe("TOOL_UNAVAILABLE");
    expect(refused.text).toContain("not reachable from here");
  });
});
