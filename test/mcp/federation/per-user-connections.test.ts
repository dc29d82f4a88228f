/**
 * Per-user connections to a remote MCP server (`auth_mode: "per_user"`, issue 30), end to end
 * against the loopback OAuth-protected MCP server made of the SDK's `mcpAuthRouter`
 * (test/support/oauth-mcp-server.ts), which records the bearer token and upstream user of every
 * tools/call: two keys each connect their own upstream account through the CONNECTION_REQUIRED
 * link, and A's token never arrives on B's call. Then every way a link or a token can go wrong.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { csrfOf, PageClient } from "../../approvals-page/page-client.ts";
import { createKey } from "../../support/create-key.ts";
import { openaiCall } from "../../support/tool-calls.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { apiRequest, app, type CallResult, callAs, type Envelope, linkOf, type Person, rowsOf, signedInPerson } from "./connection-people.ts";
import { type OAuthFixture, startOAuthFixture } from "./oauth-fixture.ts";

interface Received {
  user: string;
  token: string;
}

type Fixture = OAuthFixture<{ received: Received[]; refusedRefreshes: number }>;
const startFixture = () => startOAuthFixture<{ received: Received[]; refusedRefreshes: number }>();

const api = (fixture: Fixture, path: string, init: { method?: string; body?: unknown; bearer?: string } = {}): Promise<Response> =>
  apiRequest(fixture.env, path, init);
const person = (fixture: Fixture, label: string): Promise<Person> => signedInPerson(fixture.env, label);
const call = (fixture: Fixture, who: Person, tool: string, args: Record<string, unknown> = {}): Promise<CallResult> => callAs(fixture.env, who, tool, args);

/** Opens the link in the person's browser and lets the upstream approve as `upstreamUser`; returns the callback URL. */
async function consent(fixture: Fixture, who: Person, link: string, upstreamUser: string): Promise<string> {
  const opened = await who.browser.get(new URL(link).pathname);
  expect(opened.status, who.browser.lastPage).toBe(302);
  const authorizeUrl = new URL(opened.headers.get("location") ?? "");
  expect(authorizeUrl.origin).toBe(`http://127.0.0.1:${fixture.port}`);
  await fixture.control({ nextUser: upstreamUser });
  const approved = await fetch(authorizeUrl, { redirect: "manual" });
  expect(approved.status).toBe(302);
  const callback = approved.headers.get("location") ?? "";
  expect(callback).toMatch(/^https:\/\/toolgate\.test\/mcp-oauth\/callback\?code=/);
  return callback;
}

/** Adds the per_user server and signs toolgate in once (the shared sign-in only lists the tools). */
async function addPerUserServer(fixture: Fixture, name: string): Promise<void> {
  const res = await api(fixture, "/v1/mcp-servers", { body: { name, url: `http://127.0.0.1:${fixture.port}/mcp`, auth_mode: "per_user" } });
  expect(res.status, await res.clone().text()).toBe(201);
  const signInUrl = ((await res.json()) as { auth: { sign_in_url: string } }).auth.sign_in_url;
  const admin = new PageClient(undefined, (request) => Promise.resolve(app.request(request, undefined, fixture.env)));
  const opened = await admin.get(new URL(signInUrl).pathname + new URL(signInUrl).search);
  const approved = await fetch(opened.headers.get("location") ?? "", { redirect: "manual" });
  const callback = new URL(approved.headers.get("location") ?? "");
  expect((await admin.get(callback.pathname + callback.search)).status).toBe(200);
}

async function connect(fixture: Fixture, who: Person, server: string, upstreamUser: string): Promise<void> {
  const link = linkOf(await call(fixture, who, `mcp__${server}__whoami`));
  const callback = new URL(await consent(fixture, who, link, upstreamUser));
  const done = await who.browser.get(callback.pathname + callback.search);
  expect(done.status, who.browser.lastPage).toBe(200);
  expect(who.browser.lastPage).toContain(`Connected to ${server}`);
}

/** A fresh per_user server `server` with Alice and Bob each connected to their own upstream account. */
async function twoConnected(server: string): Promise<{ fixture: Fixture; alice: Person; bob: Person }> {
  const fixture = await startFixture();
  await addPerUserServer(fixture, server);
  const alice = await person(fixture, "alice");
  const bob = await person(fixture, "bob");
  await connect(fixture, alice, server, "alice-upstream");
  await connect(fixture, bob, server, "bob-upstream");
  return { fixture, alice, bob };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("per-user connections to a remote MCP server", () => {
  it("connects two people to their own upstream accounts, and A's token never arrives on B's call", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "peruser");
    const alice = await person(fixture, "alice");
    const bob = await person(fixture, "bob");

    // Without a connection, the call ends with CONNECTION_REQUIRED naming a one-time link, and the shared sign-in is never used.
    const first = await call(fixture, alice, "mcp__peruser__whoami");
    expect(first.status).toBe("error");
    const envelope = JSON.parse(first.content) as Envelope;
    expect(envelope.error).toContain("you have not connected your own account there yet");
    expect(envelope.connection).toMatchObject({ server: "peruser", expires_at: expect.any(String) });
    expect((await fixture.control()).received).toEqual([]);

    await connect(fixture, alice, "peruser", "alice-upstream");
    await connect(fixture, bob, "peruser", "bob-upstream");
    expect((await call(fixture, alice, "mcp__peruser__whoami")).content).toContain("user alice-upstream");
    expect((await call(fixture, bob, "mcp__peruser__whoami")).content).toContain("user bob-upstream");
    expect(await call(fixture, alice, "mcp__peruser__add", { a: 2, b: 3 })).toMatchObject({ status: "ok", content: expect.stringContaining("5") });

    const { received } = await fixture.control();
    const aliceTokens = new Set(received.filter((r) => r.user === "alice-upstream").map((r) => r.token));
    const bobTokens = new Set(received.filter((r) => r.user === "bob-upstream").map((r) => r.token));
    expect(received.map((r) => r.user)).toEqual(["alice-upstream", "bob-upstream", "alice-upstream"]);
    expect(aliceTokens.size).toBe(1);
    expect([...bobTokens].some((token) => aliceTokens.has(token))).toBe(false);
    // The admin's shared token is never sent for a per_user server's calls.
    expect(received.some((r) => r.user === "admin")).toBe(false);

    // Each audit record names the principal and the credential's kind: none before she connected, her own after; never a token.
    const audited = await waitForAuditRows("key_id = ?", [alice.keyId], 4);
    // Compared as a set: two records of one millisecond are ordered by a random rid.
    expect(audited.map((row) => `${String(row.tool)} ${String(row.credential)}`).sort()).toEqual([
      "mcp__peruser__add own",
      "mcp__peruser__whoami null",
      "mcp__peruser__whoami null",
      "mcp__peruser__whoami own",
    ]);
    for (const token of aliceTokens) expect(JSON.stringify(audited)).not.toContain(token);

    // Sealed at rest, bound to its principal and server: no token in clear, and a row copied to B does not open for B.
    const [aliceRow] = await rowsOf(alice.keyId);
    expect(aliceRow?.grant_sealed).not.toMatch(/access|refresh|Bearer/i);
    await env.DB.prepare("UPDATE mcp_connections SET grant_sealed = ? WHERE principal = ? AND server = 'peruser'")
      .bind(aliceRow?.grant_sealed ?? "", bob.keyId)
      .run();
    // Bob's own grant stays kept in this isolate for up to 10 s (connection-cache.ts): a row written behind its back waits that long.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11_000);
    const replayed = await call(fixture, bob, "mcp__peruser__whoami");
    vi.useRealTimers();
    expect(replayed.error_code).toBe("CONNECTION_REQUIRED");
    expect(replayed.content).toContain("no longer opens");
    expect((await fixture.control()).received).toHaveLength(3);
  });

  it("ends a refresh the upstream refuses mid-call with CONNECTION_REQUIRED, not a 5xx, and reconnecting works", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "perrefresh");
    const alice = await person(fixture, "alice");
    await connect(fixture, alice, "perrefresh", "alice-upstream");

    // A 401 → toolgate refreshes and repeats: still alice.
    await fixture.control({ expireAccessTokens: true });
    expect((await call(fixture, alice, "mcp__perrefresh__whoami")).content).toContain("user alice-upstream");

    await fixture.control({ expireAccessTokens: true, refuseRefresh: true });
    const refused = await call(fixture, alice, "mcp__perrefresh__whoami");
    expect(refused.status).toBe("error");
    expect(refused.error_code).toBe("CONNECTION_REQUIRED");
    expect(refused.content).toContain("invalid_grant");
    expect(await rowsOf(alice.keyId)).toMatchObject([{ server: "perrefresh", status: "needs_reconnect" }]);

    await fixture.control({ refuseRefresh: false });
    const again = await call(fixture, alice, "mcp__perrefresh__whoami");
    expect(again.content).toContain("needs renewing");
    const callback = new URL(await consent(fixture, alice, linkOf(again), "alice-upstream"));
    expect((await alice.browser.get(callback.pathname + callback.search)).status).toBe(200);
    expect((await call(fixture, alice, "mcp__perrefresh__whoami")).content).toContain("user alice-upstream");
  });

  it("ends a revoked key's connections at once", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "perrevoke");
    const alice = await person(fixture, "alice");
    await connect(fixture, alice, "perrevoke", "alice-upstream");
    expect(await rowsOf(alice.keyId)).toHaveLength(1);
    expect((await api(fixture, `/v1/keys/${alice.keyId}`, { method: "DELETE" })).status).toBe(204);
    expect(await rowsOf(alice.keyId)).toEqual([]);
    const res = await api(fixture, "/v1/tool-calls", { bearer: alice.key, body: { tool_calls: [openaiCall("c1", "mcp__perrevoke__whoami", {})] } });
    expect(res.status).toBe(401);
  });
});

describe("connection links", () => {
  it("opens once, only for the principal it was made for, and only in the browser that opened it", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "perlink");
    const alice = await person(fixture, "alice");
    const bob = await person(fixture, "bob");
    const link = linkOf(await call(fixture, alice, "mcp__perlink__whoami"));

    // Bob's browser is refused, and that does not spend Alice's link.
    const foreign = await bob.browser.get(new URL(link).pathname);
    expect(foreign.status).toBe(403);
    expect(bob.browser.lastPage).toContain("another key");
    // Outside the chat site (where the browser's key is unknown) it does not open either.
    const bare = await Promise.resolve(app.request(`https://toolgate.test/mcp-oauth/start?state=${new URL(link).pathname.split("/").at(-1)}`, {}, fixture.env));
    expect(await bare.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "wrong_principal" });

    const callback = await consent(fixture, alice, link, "alice-upstream");
    const twice = await alice.browser.get(new URL(link).pathname);
    expect(await twice.json()).toMatchObject({ reason: "link_used" });
    // Bob replaying Alice's callback (he lacks her nonce cookie) is refused, and nothing is stored for anyone.
    const url = new URL(callback);
    const replay = await bob.browser.get(url.pathname + url.search);
    expect(await replay.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "browser_mismatch" });
    expect(await rowsOf(bob.keyId)).toEqual([]);
    expect(await rowsOf(alice.keyId)).toEqual([]);
    expect((await alice.browser.get(url.pathname + url.search)).status).toBe(200);
    expect(await rowsOf(alice.keyId)).toHaveLength(1);
  });

  it("refuses a link after it expires, and a forged state", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "perexpire");
    const alice = await person(fixture, "alice");
    const link = linkOf(await call(fixture, alice, "mcp__perexpire__whoami"));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    const expired = await alice.browser.get(new URL(link).pathname);
    expect(expired.status).toBe(404);
    expect(alice.browser.lastPage).toContain("older than 10 minutes");
    vi.useRealTimers();

    const forgedLink = await alice.browser.get("/chat/connect/forged-state-that-was-never-issued");
    expect(forgedLink.status).toBe(404);
    const forgedCallback = await alice.browser.get("/mcp-oauth/callback?code=abc&state=forged");
    expect(await forgedCallback.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "unknown_state" });
    expect(await rowsOf(alice.keyId)).toEqual([]);
  });

  it("stores nothing when the upstream answers the token request with HTML", async () => {
    const fixture = await startFixture();
    await addPerUserServer(fixture, "perhtml");
    const alice = await person(fixture, "alice");
    const callback = new URL(await consent(fixture, alice, linkOf(await call(fixture, alice, "mcp__perhtml__whoami")), "alice-upstream"));
    await fixture.control({ htmlToken: true });
    const res = await alice.browser.get(callback.pathname + callback.search);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error_code: "MCP_SIGN_IN_FAILED", reason: "exchange_failed" });
    expect(await rowsOf(alice.keyId)).toEqual([]);
    expect((await call(fixture, alice, "mcp__perhtml__whoami")).error_code).toBe("CONNECTION_REQUIRED");
  });
});

describe("the connections API", () => {
  interface Page {
    connections: { principal: string; server: string; status: string }[];
    next_cursor: string | null;
  }

  it("lists, reconnects and ends the caller's own connections; an admin sees and ends anyone's", async () => {
    const { fixture, alice, bob } = await twoConnected("perapi");

    const own = (await (await api(fixture, "/v1/connections", { bearer: alice.key })).json()) as Page;
    expect(own).toEqual({ connections: [expect.objectContaining({ principal: alice.keyId, server: "perapi", status: "connected" })], next_cursor: null });
    expect(JSON.stringify(own)).not.toMatch(/token|grant/i);
    // Another principal's, or everyone's, is for admins only.
    expect((await api(fixture, `/v1/connections?principal=${bob.keyId}`, { bearer: alice.key })).status).toBe(403);
    expect((await api(fixture, "/v1/connections?all=true", { bearer: alice.key })).status).toBe(403);
    expect((await api(fixture, `/v1/connections/perapi?principal=${bob.keyId}`, { method: "DELETE", bearer: alice.key })).status).toBe(403);
    const asAdmin = (await (await api(fixture, `/v1/connections?principal=${bob.keyId}`)).json()) as Page;
    expect(asAdmin.connections.map((row) => row.principal)).toEqual([bob.keyId]);

    // Reconnect hands the caller a link of its own.
    const relink = await api(fixture, "/v1/connections/perapi/reconnect", { method: "POST", bearer: alice.key });
    expect(relink.status).toBe(201);
    expect(((await relink.json()) as { url: string }).url).toMatch(/^https:\/\/toolgate\.test\/chat\/connect\/[\w-]{43}$/);

    // The admin ends Bob's; the admin's own calls never use it (the admin has no connection of its own).
    expect((await api(fixture, `/v1/connections/perapi?principal=${bob.keyId}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(fixture, bob, "mcp__perapi__whoami")).error_code).toBe("CONNECTION_REQUIRED");
    const adminCall = await api(fixture, "/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", "mcp__perapi__whoami", {})] } });
    expect(((await adminCall.json()) as { results: { error_code: string }[] }).results[0]?.error_code).toBe("CONNECTION_REQUIRED");
    // Alice ends her own.
    expect((await api(fixture, "/v1/connections/perapi", { method: "DELETE", bearer: alice.key })).status).toBe(204);
    expect((await api(fixture, "/v1/connections/perapi", { method: "DELETE", bearer: alice.key })).status).toBe(404);
    expect((await call(fixture, alice, "mcp__perapi__whoami")).error_code).toBe("CONNECTION_REQUIRED");
  });

  it("pages through 1,000 connections of one principal, each row once, and refuses a forged cursor", async () => {
    const fixture = await startFixture();
    const principal = `key_many_${crypto.randomUUID()}`;
    const sealed = JSON.stringify({ v: 1, iv: "AAAAAAAAAAAAAAAA", data: "AAAA" });
    const insert = env.DB.prepare(
      "INSERT INTO mcp_connections (principal, server, status, reason, grant_sealed, connected_at, updated_at) VALUES (?, ?, 'connected', NULL, ?, 1, 1)",
    );
    const servers = Array.from({ length: 1000 }, (_, i) => `srv${String(i).padStart(4, "0")}`);
    await env.DB.batch(servers.map((server) => insert.bind(principal, server, sealed)));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api(fixture, `/v1/connections?principal=${principal}&limit=200${cursor === null ? "" : `&cursor=${cursor}`}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as Page;
      seen.push(...page.connections.map((row) => row.server));
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(servers);
    // 5 full pages, then one empty page that ends the list.
    expect(pages).toBe(6);

    expect((await api(fixture, "/v1/connections?cursor=not-a-cursor")).status).toBe(400);
    expect((await api(fixture, "/v1/connections?limit=5000")).status).toBe(400);
  });
});

describe("the Connections pages", () => {
  it("show a person their own connections to reconnect and revoke, and an admin everyone's to revoke, never to reconnect", async () => {
    const { fixture, alice, bob } = await twoConnected("perpage");

    // Alice's page lists hers alone, with both actions; never a token.
    expect((await alice.browser.get("/chat/connections")).status).toBe(200);
    const own = alice.browser.lastPage;
    expect(own).toContain(`data-connection="${alice.keyId}/perpage"`);
    expect(own).not.toContain(bob.keyId);
    expect(own).toContain('aria-label="Reconnect perpage"');
    expect(own).toContain('aria-label="Revoke perpage"');
    expect(own).not.toMatch(/Bearer|access_token|grant_sealed/);
    expect(own).toContain('href="/chat/connections"');

    // Reconnect goes straight to a fresh link of hers, which runs the upstream's consent again.
    const relinked = await alice.browser.post("/chat/connections/perpage/reconnect", { csrf: csrfOf(own) });
    expect(relinked.status).toBe(303);
    const link = relinked.headers.get("location") ?? "";
    expect(link).toMatch(/^\/chat\/connect\/[\w-]{43}$/);
    const callback = new URL(await consent(fixture, alice, `https://toolgate.test${link}`, "alice-second"));
    expect((await alice.browser.get(callback.pathname + callback.search)).status).toBe(200);
    expect((await call(fixture, alice, "mcp__perpage__whoami")).content).toContain("user alice-second");

    // A form without the page's CSRF token changes nothing.
    expect((await alice.browser.post("/chat/connections/perpage/revoke", { csrf: "forged" })).status).toBe(403);
    // Revoke ends hers at once.
    await alice.browser.get("/chat/connections");
    const revoked = await alice.browser.post("/chat/connections/perpage/revoke", { csrf: csrfOf(alice.browser.lastPage) });
    expect(revoked.status).toBe(303);
    expect((await alice.browser.get(revoked.headers.get("location") ?? "")).status).toBe(200);
    expect(alice.browser.lastPage).toContain("Ended your connection to perpage.");
    expect(alice.browser.lastPage).toContain("No connections yet");
    expect((await call(fixture, alice, "mcp__perpage__whoami")).error_code).toBe("CONNECTION_REQUIRED");

    // The console lists everyone's (Bob's here) with Revoke and no Reconnect; revoking Bob's ends it at once.
    const adminKey = await createKey({ name: `conn-admin-${crypto.randomUUID()}`, role: "admin" });
    const admin = new PageClient(undefined, (request) => Promise.resolve(app.request(request, undefined, fixture.env)));
    await admin.get("/admin/sign-in");
    expect((await admin.post("/admin/sign-in", { key: adminKey.key, csrf: csrfOf(admin.lastPage) })).status).toBe(303);
    expect((await admin.get("/admin/connections")).status).toBe(200);
    expect(admin.lastPage).toContain(`data-connection="${bob.keyId}/perpage"`);
    expect(admin.lastPage).not.toContain("Reconnect");
    const path = `/admin/connections/${encodeURIComponent(bob.keyId)}/perpage/revoke`;
    expect(admin.lastPage).toContain(`action="${path}"`);
    const ended = await admin.post(path, { csrf: csrfOf(admin.lastPage) });
    expect(ended.status).toBe(303);
    await admin.get(ended.headers.get("location") ?? "");
    expect(admin.lastPage).toContain(`Ended ${bob.keyId}&#39;s connection to perpage.`);
    expect(admin.lastPage).not.toContain(`data-connection="${bob.keyId}/perpage"`);
    expect((await call(fixture, bob, "mcp__perpage__whoami")).error_code).toBe("CONNECTION_REQUIRED");
    // Revoking again finds nothing, and says so.
    expect((await admin.post(path, { csrf: csrfOf(admin.lastPage) })).status).toBe(404);
    // A person's own page is not a way into someone else's: Bob's browser cannot revoke through the console.
    expect((await bob.browser.get("/admin/connections")).status).toBe(403);
  });
});
