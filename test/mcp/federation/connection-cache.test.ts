/**
 * The per-isolate cache of opened connection grants (connection-cache.ts): what it keeps, for
 * how long, and that every write through the store drops it at once, on real D1.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OAuthGrant } from "../../../src/mcp/client/oauth/oauth-grant.ts";
import { userAuth } from "../../../src/mcp/federation/connections/connection-auth.ts";
import { CONNECTION_CACHE_TTL_MS, ConnectionCache } from "../../../src/mcp/federation/connections/connection-cache.ts";
import {
  deleteConnection,
  deleteConnectionsOf,
  deleteConnectionsTo,
  MCP_CONNECTIONS_TABLE,
  markNeedsReconnect,
  writeConnection,
} from "../../../src/mcp/federation/connections/connection-store.ts";
import { TEST_MCP_TOKEN_KEY } from "../../support/test-env.ts";

const keyed = { ...env, MCP_TOKEN_KEY: TEST_MCP_TOKEN_KEY } as Env;

const grant = (accessToken: string, expiresAt?: number): OAuthGrant => ({
  authorizationServerUrl: "https://auth.example",
  client: { client_id: "c" },
  accessToken,
  ...(expiresAt === undefined ? {} : { expiresAt }),
});

/** A cache on a clock the test moves. */
function clocked(): { cache: ConnectionCache; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  return { cache: new ConnectionCache({ now: () => clock.now }), clock };
}

const bearer = async (found: Awaited<ReturnType<typeof userAuth>>): Promise<string | undefined> =>
  found.ok ? found.auth.authorization(AbortSignal.timeout(5_000)) : `refused: ${found.reason}`;

describe("ConnectionCache", () => {
  it("keeps a grant for its 10 s, the key cache's bound, then forgets it", () => {
    const { cache, clock } = clocked();
    cache.set("p", "srv", grant("t1"));
    clock.now += CONNECTION_CACHE_TTL_MS - 1;
    expect(cache.get("p", "srv")?.accessToken).toBe("t1");
    clock.now += 1;
    expect(cache.get("p", "srv")).toBeUndefined();
    expect(CONNECTION_CACHE_TTL_MS).toBe(10_000);
  });

  it("never keeps a token past its refresh margin, nor one already due", () => {
    const { cache, clock } = clocked();
    // Expires in 35 s: with the 30 s margin it may be served for 5 s, not 10.
    cache.set("p", "soon", grant("t", clock.now + 35_000));
    cache.set("p", "due", grant("t", clock.now + 20_000));
    expect(cache.get("p", "due")).toBeUndefined();
    clock.now += 4_999;
    expect(cache.get("p", "soon")?.accessToken).toBe("t");
    clock.now += 1;
    expect(cache.get("p", "soon")).toBeUndefined();
  });

  it("forgets one entry, a principal's, or an upstream's", () => {
    const { cache } = clocked();
    for (const [p, u] of [
      ["a", "x"],
      ["a", "openapi:y"],
      ["b", "x"],
      ["b", "openapi:y"],
    ] as const)
      cache.set(p, u, grant(`${p}${u}`));
    cache.forget("a", "x");
    expect(cache.get("a", "x")).toBeUndefined();
    cache.forgetUpstream("openapi:y");
    expect([cache.get("a", "openapi:y"), cache.get("b", "openapi:y")]).toEqual([undefined, undefined]);
    expect(cache.get("b", "x")?.accessToken).toBe("bx");
    cache.forgetPrincipal("b");
    expect(cache.size).toBe(0);
  });

  it("holds at most 10,000 entries, dropping the oldest first", () => {
    const { cache } = clocked();
    for (let i = 0; i <= 10_000; i++) cache.set(`p${i}`, "srv", grant(`t${i}`));
    expect(cache.size).toBe(10_000);
    expect(cache.get("p0", "srv")).toBeUndefined();
    expect(cache.get("p10000", "srv")?.accessToken).toBe("t10000");
  });
});

describe("the own-token lookup with the cache", () => {
  it("serves a kept grant without D1 until its TTL ends: a row deleted elsewhere stops working within 10 s", async () => {
    const { cache, clock } = clocked();
    const principal = `cache-${crypto.randomUUID()}`;
    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "srv", grant("own-token"), clock.now);
    expect(await bearer(await userAuth(keyed, "srv", principal, () => clock.now, cache))).toBe("Bearer own-token");
    // Another isolate's revocation: the row goes, this isolate's cache is not told.
    await env.DB.prepare(`DELETE FROM ${MCP_CONNECTIONS_TABLE} WHERE principal = ?`).bind(principal).run();
    expect(await bearer(await userAuth(keyed, "srv", principal, () => clock.now, cache))).toBe("Bearer own-token");
    clock.now += CONNECTION_CACHE_TTL_MS;
    expect(await bearer(await userAuth(keyed, "srv", principal, () => clock.now, cache))).toMatch(/^refused: you have not connected/);
  });

  it("drops a kept grant at once on every write in this isolate: reconnect, needs-reconnect, delete, key revoked, upstream removed", async () => {
    const principal = `writes-${crypto.randomUUID()}`;
    const lookup = async (upstream = "srv") => bearer(await userAuth(keyed, upstream, principal, () => Date.now()));
    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "srv", grant("first"), Date.now());
    expect(await lookup()).toBe("Bearer first");
    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "srv", grant("second"), Date.now());
    expect(await lookup()).toBe("Bearer second");
    await markNeedsReconnect(env.DB, principal, "srv", "refused", Date.now());
    expect(await lookup()).toMatch(/needs renewing/);
    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "srv", grant("third"), Date.now());
    expect(await lookup()).toBe("Bearer third");
    await deleteConnection(env.DB, principal, "srv");
    expect(await lookup()).toMatch(/not connected/);

    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "srv", grant("fourth"), Date.now());
    await writeConnection(env.DB, TEST_MCP_TOKEN_KEY, principal, "openapi:api", grant("fifth"), Date.now());
    expect([await lookup(), await lookup("openapi:api")]).toEqual(["Bearer fourth", "Bearer fifth"]);
    await deleteConnectionsTo(env.DB, "openapi:api");
    expect(await lookup("openapi:api")).toMatch(/not connected/);
    expect(await lookup()).toBe("Bearer fourth");
    await deleteConnectionsOf(env.DB, principal);
    expect(await lookup()).toMatch(/not connected/);
  });
});
