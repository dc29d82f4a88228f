/**
 * `per_user` OpenAPI sources (issues 30 and 31), end to end on real bindings against the
 * loopback OAuth server (test/support/oauth-mcp-server.ts), which is also a REST API that
 * records the bearer token and upstream user of every call: the source takes its authorization
 * and token endpoints from the spec's securitySchemes, two keys each connect their own upstream
 * account through the CONNECTION_REQUIRED link, and A's token never arrives on B's call. Then
 * the link's one use, a refresh refused mid-call, and the connections API and pages.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectionCache } from "../../src/mcp/federation/connections/connection-cache.ts";
import { csrfOf } from "../approvals-page/page-client.ts";
import { apiRequest, type CallResult, callAs, linkOf, type Person, rowsOf, signedInPerson } from "../mcp/federation/connection-people.ts";
import { type OAuthFixture, startOAuthFixture } from "../mcp/federation/oauth-fixture.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

type Fixture = OAuthFixture<{ received: { user: string; token: string }[]; refusedRefreshes: number; refreshes: number }>;

interface Setup {
  fixture: Fixture;
  env: Env;
  /** toolgate's client at the fixture's authorization server. */
  clientId: string;
}

/** The client toolgate is at the fixture's authorization server, registered as an admin would, its secret a Worker secret. */
async function setUp(): Promise<Setup> {
  const fixture = await startOAuthFixture<Fixture extends OAuthFixture<infer C> ? C : never>();
  const registered = await fetch(`http://127.0.0.1:${fixture.port}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "toolgate",
      redirect_uris: ["https://toolgate.test/mcp-oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_post",
    }),
  });
  const client = (await registered.json()) as { client_id: string; client_secret: string };
  return { fixture, env: { ...fixture.env, API_CLIENT_SECRET: client.client_secret } as Env, clientId: client.client_id };
}

const api = (setup: Setup, path: string, init: { method?: string; body?: unknown; bearer?: string } = {}): Promise<Response> =>
  apiRequest(setup.env, path, init);

/** Adds a per_user source over the fixture's REST API; the endpoints come from its spec unless `bare`. */
async function addSource(setup: Setup, name: string, extra: Record<string, unknown> = {}, bare = false): Promise<Response> {
  return api(setup, "/v1/openapi-sources", {
    body: {
      name,
      spec: { url: `http://127.0.0.1:${setup.fixture.port}/openapi.json${bare ? "?bare=1" : ""}` },
      auth: {
        type: "per_user",
        client_id: setup.clientId,
        client_secret: { secret: "API_CLIENT_SECRET" },
        client_auth: "client_secret_post",
        ...extra,
      },
    },
  });
}

const person = (setup: Setup, label: string): Promise<Person> => signedInPerson(setup.env, label);
const call = (setup: Setup, who: Person, tool: string): Promise<CallResult> => callAs(setup.env, who, tool);

/** Opens the link in the person's browser, lets the upstream approve as `upstreamUser`, and finishes at toolgate's callback. */
async function connectThrough(setup: Setup, who: Person, link: string, upstreamUser: string): Promise<Response> {
  const opened = await who.browser.get(new URL(link).pathname);
  expect(opened.status, who.browser.lastPage).toBe(302);
  const authorizeUrl = new URL(opened.headers.get("location") ?? "");
  // The endpoint the spec's securitySchemes named, with PKCE and the state.
  expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`http://127.0.0.1:${setup.fixture.port}/authorize`);
  expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizeUrl.searchParams.get("scope")).toBe("tools");
  await setup.fixture.control({ nextUser: upstreamUser });
  const approved = await fetch(authorizeUrl, { redirect: "manual" });
  const callback = new URL(approved.headers.get("location") ?? "");
  return who.browser.get(callback.pathname + callback.search);
}

async function connect(setup: Setup, who: Person, tool: string, upstreamUser: string): Promise<void> {
  const done = await connectThrough(setup, who, linkOf(await call(setup, who, tool)), upstreamUser);
  expect(done.status, who.browser.lastPage).toBe(200);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("per_user OpenAPI sources", () => {
  it("connects two people to their own upstream accounts, and A's token never arrives on B's call", async () => {
    const setup = await setUp();
    expect((await addSource(setup, "pu_two")).status).toBe(201);
    const alice = await person(setup, "alice");
    const bob = await person(setup, "bob");

    // No connection: CONNECTION_REQUIRED naming a one-time link, and nothing reaches the API.
    const first = await call(setup, alice, "pu_two__whoami");
    expect(first.status).toBe("error");
    expect(first.content).toContain("acts as you at API 'pu_two'");
    expect(first.content).toContain("you have not connected your own account there yet");
    expect(JSON.parse(first.content)).toMatchObject({ connection: { server: "openapi:pu_two" } });
    expect((await setup.fixture.control()).received).toEqual([]);

    const done = await connectThrough(setup, alice, linkOf(first), "alice-upstream");
    expect(done.status).toBe(200);
    expect(alice.browser.lastPage).toContain("Connected to pu_two");
    await connect(setup, bob, "pu_two__whoami", "bob-upstream");

    expect(await call(setup, alice, "pu_two__whoami")).toMatchObject({ status: "ok", content: expect.stringContaining("alice-upstream") });
    expect(await call(setup, bob, "pu_two__whoami")).toMatchObject({ status: "ok", content: expect.stringContaining("bob-upstream") });
    expect((await call(setup, alice, "pu_two__whoami")).content).toContain("alice-upstream");

    const { received } = await setup.fixture.control();
    expect(received.map((r) => r.user)).toEqual(["alice-upstream", "bob-upstream", "alice-upstream"]);
    const aliceTokens = new Set(received.filter((r) => r.user === "alice-upstream").map((r) => r.token));
    expect(aliceTokens.size).toBe(1);
    expect(received.filter((r) => r.user === "bob-upstream").some((r) => aliceTokens.has(r.token))).toBe(false);

    // The audit names her own credential, and never a token.
    const audited = await waitForAuditRows("key_id = ?", [alice.keyId], 3);
    expect(audited.map((row) => String(row.credential)).sort()).toEqual(["null", "own", "own"]);
    for (const token of aliceTokens) expect(JSON.stringify(audited)).not.toContain(token);

    // Sealed at rest under the source's upstream id; a row copied to Bob does not open for him.
    const [aliceRow] = await rowsOf(alice.keyId);
    expect(aliceRow).toMatchObject({ server: "openapi:pu_two", status: "connected" });
    expect(aliceRow?.grant_sealed).not.toMatch(/access|refresh|Bearer/i);
    await env.DB.prepare("UPDATE mcp_connections SET grant_sealed = ? WHERE principal = ? AND server = 'openapi:pu_two'")
      .bind(aliceRow?.grant_sealed ?? "", bob.keyId)
      .run();
    // Bob's own opened grant is still kept in this isolate (at most 10 s): a copy written behind its back waits that long.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11_000);
    const replayed = await call(setup, bob, "pu_two__whoami");
    vi.useRealTimers();
    expect(replayed.error_code).toBe("CONNECTION_REQUIRED");
    expect(replayed.content).toContain("no longer opens");
    expect((await setup.fixture.control()).received).toHaveLength(3);
  });

  it("opens a connection link once, and only for the principal it was made for", async () => {
    const setup = await setUp();
    expect((await addSource(setup, "pu_link")).status).toBe(201);
    const alice = await person(setup, "alice");
    const bob = await person(setup, "bob");
    const link = linkOf(await call(setup, alice, "pu_link__whoami"));

    expect((await bob.browser.get(new URL(link).pathname)).status).toBe(403);
    expect((await connectThrough(setup, alice, link, "alice-upstream")).status).toBe(200);
    const twice = await alice.browser.get(new URL(link).pathname);
    expect(twice.status).toBe(404);
    expect(await rowsOf(bob.keyId)).toEqual([]);
    expect(await rowsOf(alice.keyId)).toMatchObject([{ server: "openapi:pu_link", status: "connected" }]);
  });

  it("renews an expired token mid-call, and ends a refresh the upstream refuses with CONNECTION_REQUIRED, not a 5xx", async () => {
    const setup = await setUp();
    expect((await addSource(setup, "pu_refresh")).status).toBe(201);
    const alice = await person(setup, "alice");
    await connect(setup, alice, "pu_refresh__whoami", "alice-upstream");

    // The API answers 401 to the token → toolgate refreshes and sends once more: still alice.
    await setup.fixture.control({ expireAccessTokens: true });
    expect(await call(setup, alice, "pu_refresh__whoami")).toMatchObject({ status: "ok", content: expect.stringContaining("alice-upstream") });
    expect((await setup.fixture.control()).refreshes).toBe(1);

    await setup.fixture.control({ expireAccessTokens: true, refuseRefresh: true });
    const refused = await call(setup, alice, "pu_refresh__whoami");
    expect(refused.status).toBe("error");
    expect(refused.error_code).toBe("CONNECTION_REQUIRED");
    expect(refused.content).toContain("invalid_grant");
    expect(await rowsOf(alice.keyId)).toMatchObject([{ server: "openapi:pu_refresh", status: "needs_reconnect" }]);

    // The next call asks to renew at once (the isolate's copy went with the refusal), and reconnecting works.
    await setup.fixture.control({ refuseRefresh: false });
    const again = await call(setup, alice, "pu_refresh__whoami");
    expect(again.content).toContain("needs renewing");
    expect((await connectThrough(setup, alice, linkOf(again), "alice-upstream")).status).toBe(200);
    expect((await call(setup, alice, "pu_refresh__whoami")).content).toContain("alice-upstream");
  });

  it("refuses a per_user source whose spec names no authorization-code flow unless the endpoints are configured", async () => {
    const setup = await setUp();
    const bare = await addSource(setup, "pu_bare", {}, true);
    expect(bare.status).toBe(422);
    expect(await bare.text()).toContain("per_user auth needs authorization_url and token_url");
    const port = setup.fixture.port;
    const configured = await addSource(
      setup,
      "pu_bare",
      { authorization_url: `http://127.0.0.1:${port}/authorize`, token_url: `http://127.0.0.1:${port}/token`, scope: "tools" },
      true,
    );
    expect(configured.status, await configured.clone().text()).toBe(201);
    const alice = await person(setup, "alice");
    await connect(setup, alice, "pu_bare__whoami", "alice-upstream");
    expect((await call(setup, alice, "pu_bare__whoami")).content).toContain("alice-upstream");
  });
});

describe("a revoked key", () => {
  it("stops its source connections at once, though this isolate kept its grant a moment before", async () => {
    const setup = await setUp();
    expect((await addSource(setup, "pu_revoke")).status).toBe(201);
    const alice = await person(setup, "alice");
    await connect(setup, alice, "pu_revoke__whoami", "alice-upstream");
    expect((await call(setup, alice, "pu_revoke__whoami")).content).toContain("alice-upstream");
    expect(connectionCache.get(alice.keyId, "openapi:pu_revoke")).toBeDefined();

    expect((await api(setup, `/v1/keys/${alice.keyId}`, { method: "DELETE" })).status).toBe(204);
    expect(connectionCache.get(alice.keyId, "openapi:pu_revoke")).toBeUndefined();
    expect(await rowsOf(alice.keyId)).toEqual([]);
    const res = await api(setup, "/v1/tool-calls", { bearer: alice.key, body: { tool_calls: [openaiCall("c1", "pu_revoke__whoami", {})] } });
    expect(res.status).toBe(401);
    expect((await setup.fixture.control()).received).toHaveLength(1);
  });
});

describe("source connections in the connections API and pages", () => {
  it("lists, reconnects and ends a source connection, and removing the source removes everyone's", async () => {
    const setup = await setUp();
    expect((await addSource(setup, "pu_list")).status).toBe(201);
    const alice = await person(setup, "alice");
    await connect(setup, alice, "pu_list__whoami", "alice-upstream");

    const own = (await (await api(setup, "/v1/connections", { bearer: alice.key })).json()) as { connections: unknown[] };
    expect(own.connections).toEqual([
      expect.objectContaining({ principal: alice.keyId, server: "openapi:pu_list", kind: "openapi_source", name: "pu_list", status: "connected" }),
    ]);
    const relink = await api(setup, "/v1/connections/openapi:pu_list/reconnect", { method: "POST", bearer: alice.key });
    expect(relink.status).toBe(201);
    expect(((await relink.json()) as { url: string }).url).toMatch(/^https:\/\/toolgate\.test\/chat\/connect\/[\w-]{43}$/);
    expect((await api(setup, "/v1/connections/openapi:nope/reconnect", { method: "POST", bearer: alice.key })).status).toBe(404);

    // The chat page lists it as an API, with Reconnect that leads straight to a fresh link.
    expect((await alice.browser.get("/chat/connections")).status).toBe(200);
    expect(alice.browser.lastPage).toContain(`data-connection="${alice.keyId}/openapi:pu_list"`);
    const relinked = await alice.browser.post(`/chat/connections/${encodeURIComponent("openapi:pu_list")}/reconnect`, { csrf: csrfOf(alice.browser.lastPage) });
    expect(relinked.status).toBe(303);
    expect(relinked.headers.get("location")).toMatch(/^\/chat\/connect\/[\w-]{43}$/);

    // Revoking ends it at once in this isolate, though its grant was kept here a moment ago.
    expect((await api(setup, "/v1/connections/openapi:pu_list", { method: "DELETE", bearer: alice.key })).status).toBe(204);
    expect((await call(setup, alice, "pu_list__whoami")).error_code).toBe("CONNECTION_REQUIRED");

    await connect(setup, alice, "pu_list__whoami", "alice-upstream");
    expect((await api(setup, "/v1/openapi-sources/pu_list", { method: "DELETE" })).status).toBe(204);
    expect(await rowsOf(alice.keyId)).toEqual([]);
  });
});
