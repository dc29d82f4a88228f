/** authenticate(): who may reach /v1 at all, and how long a looked-up key is trusted. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { KeyCache } from "../../src/auth/key-cache.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { authApp, call, through } from "./helpers.ts";

const app = authApp();

describe("authenticate", () => {
  it("answers 401 with a Bearer challenge when no key is sent", async () => {
    const response = await call(app, "/v1/whoami", { token: null });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="toolgate"');
    expect(await json(response)).toMatchObject({ error_code: "UNAUTHENTICATED", error: expect.stringContaining("Authorization: Bearer <key>") });
  });

  it.each([
    ["another scheme", `Basic ${btoa("user:pass")}`],
    ["a bare token", TEST_ADMIN_TOKEN],
    ["Bearer with no token", "Bearer "],
    ["two tokens", `Bearer ${TEST_ADMIN_TOKEN} extra`],
  ])("answers 401 invalid_token for a malformed header: %s", async (_what, header) => {
    const response = await call(app, "/v1/whoami", { token: null, headers: { authorization: header } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="toolgate", error="invalid_token"');
    expect(await json(response)).toMatchObject({ error_code: "UNAUTHENTICATED", error: expect.stringContaining("'Bearer <key>'") });
  });

  it("answers 401 for a well-formed key that does not exist", async () => {
    const response = await call(app, "/v1/whoami", { token: "tg_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(response.status).toBe(401);
    expect(await json(response)).toMatchObject({ error_code: "UNAUTHENTICATED", error: "The API key is not valid." });
  });

  it("accepts the admin token as the admin principal, with any letter case in the scheme", async () => {
    const response = await call(app, "/v1/whoami", { token: null, headers: { authorization: `bearer ${TEST_ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      keyId: "admin-token",
      name: "admin token (ADMIN_TOKEN)",
      role: "admin",
      toolsets: null,
      policy: { mode: "deny", patterns: [] },
      rateLimitPerMinute: null,
      scopes: [],
    });
  });

  it("does not accept a token that merely starts like the admin token", async () => {
    expect((await call(app, "/v1/whoami", { token: TEST_ADMIN_TOKEN.slice(0, -1) })).status).toBe(401);
    expect((await call(app, "/v1/whoami", { token: `${TEST_ADMIN_TOKEN}0` })).status).toBe(401);
  });

  it("turns an API key into its principal", async () => {
    const created = await createKey(
      { name: "auth-agent", role: "agent", toolsets: ["core"], policy: { mode: "deny", patterns: ["echo"] }, rate_limit_per_minute: 30 },
      through(app),
    );
    const response = await call(app, "/v1/whoami", { token: created.key });
    expect(await json(response)).toEqual({
      keyId: created.id,
      name: "auth-agent",
      role: "agent",
      toolsets: ["core"],
      policy: { mode: "deny", patterns: ["echo"] },
      rateLimitPerMinute: 30,
      scopes: [],
    });
  });

  it("answers 403 naming the role needed when the key's role may not use a route", async () => {
    const agent = await createKey({ name: "auth-role-agent", role: "agent" }, through(app));
    const approver = await createKey({ name: "auth-role-approver", role: "approver" }, through(app));

    const refused = await call(app, "/v1/approvals", { token: agent.key });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({
      error_code: "FORBIDDEN",
      error: "This route needs the approver or admin role; this API key has the agent role.",
    });
    expect((await call(app, "/v1/approvals", { token: approver.key })).status).toBe(200);
    expect((await call(app, "/v1/approvals")).status).toBe(200);
  });

  it("keeps trusting a key revoked by another isolate only until the cache entry expires", async () => {
    let now = 1_000_000;
    const isolate = authApp({ cache: new KeyCache({ ttlMs: 10_000, now: () => now }) });
    const created = await createKey({ name: "auth-cached", role: "agent" }, through(app));
    expect((await call(isolate, "/v1/whoami", { token: created.key })).status).toBe(200);

    // Another isolate revokes it: straight in D1, so this isolate's cache is not told.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), created.id).run();
    now += 9_999;
    expect((await call(isolate, "/v1/whoami", { token: created.key })).status).toBe(200);

    now += 1;
    const refused = await call(isolate, "/v1/whoami", { token: created.key });
    expect(refused.status).toBe(401);
    expect(await json(refused)).toMatchObject({ error_code: "UNAUTHENTICATED", error: expect.stringMatching(/^The API key was revoked at \d{4}-/) });
  });

  it("does not authenticate with the admin token when ADMIN_TOKEN is unset or blank", async () => {
    for (const ADMIN_TOKEN of [undefined, "", "   "]) {
      const response = await app.request("/v1/whoami", { headers: { authorization: `Bearer ${ADMIN_TOKEN ?? "x"}` } }, { ...env, ADMIN_TOKEN });
      expect(response.status).toBe(401);
    }
  });
});
