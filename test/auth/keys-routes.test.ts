/** The admin keys API: create (key shown once, digest stored), list, show, revoke. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/key-hash.ts";
import { createCustomToolset } from "../../src/toolsets/custom-toolsets.ts";
import { type CreatedKey, createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { authApp, call, through } from "./helpers.ts";

const app = authApp();

describe("POST /v1/keys", () => {
  it("returns the key once with its record, and stores only the key's SHA-256 digest", async () => {
    const created = await createKey(
      {
        name: "keys-create",
        role: "agent",
        toolsets: ["research"],
        policy: { mode: "whitelist", patterns: ["echo", "mcp__github__*"] },
        rate_limit_per_minute: 60,
      },
      through(app),
    );
    expect(created).toMatchObject({
      id: expect.any(String),
      key: expect.stringMatching(/^tg_[A-Za-z0-9_-]{43}$/),
      name: "keys-create",
      role: "agent",
      toolsets: ["research"],
      policy: { mode: "whitelist", patterns: ["echo", "mcp__github__*"] },
      rate_limit_per_minute: 60,
      created_by: "admin-token",
      revoked_at: null,
    });
    expect(created.prefix).toBe(created.key.slice(0, 9));

    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(created.id).first();
    expect(row?.key_hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const shown = await json<Record<string, unknown>>(await call(app, `/v1/keys/${created.id}`));
    expect(shown).not.toHaveProperty("key");
    expect(JSON.stringify(shown)).not.toContain(created.key.slice(9));
  });

  it("defaults to every toolset, no denied tool and the gateway's rate limit", async () => {
    const created = await createKey({ name: "keys-defaults", role: "approver" }, through(app));
    expect(created).toMatchObject({ toolsets: null, policy: { mode: "deny", patterns: [] }, rate_limit_per_minute: null });
  });

  it("records which admin key created a key", async () => {
    const admin = await createKey({ name: "keys-admin", role: "admin" }, through(app));
    const response = await call(app, "/v1/keys", { token: admin.key, body: { name: "keys-by-admin", role: "agent" } });
    expect(await json(response)).toMatchObject({ created_by: admin.id });
  });

  it("answers 400 naming each invalid field", async () => {
    const response = await call(app, "/v1/keys", {
      body: { name: "", role: "root", policy: { mode: "allow", patterns: ["bad pattern!"] }, rate_limit_per_minute: 0, extra: 1 },
    });
    expect(response.status).toBe(400);
    const body = await json<{ error_code: string; issues: { path: string }[] }>(response);
    expect(body.error_code).toBe("INVALID_REQUEST");
    expect(body.issues.map((i) => i.path).sort()).toEqual(["", "name", "policy.mode", "policy.patterns.0", "rate_limit_per_minute", "role"]);
  });

  it("answers 400 for unknown toolsets and accepts custom ones", async () => {
    const custom = await createCustomToolset(env.KV, "keys-custom", { description: "", tools: ["echo"], includes: [] });
    expect(custom.ok).toBe(true);
    const refused = await call(app, "/v1/keys", { body: { name: "keys-bad-toolsets", role: "agent", toolsets: ["core", "nope", "keys-custom", "gone"] } });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      issues: [
        { path: "toolsets.1", message: "unknown toolset 'nope'; GET /v1/toolsets lists them" },
        { path: "toolsets.3", message: "unknown toolset 'gone'; GET /v1/toolsets lists them" },
      ],
    });
    expect(await createKey({ name: "keys-custom-ok", role: "agent", toolsets: ["keys-custom", "all"] }, through(app))).toMatchObject({
      toolsets: ["keys-custom", "all"],
    });
  });

  it("is refused with 403 to agent and approver keys", async () => {
    for (const role of ["agent", "approver"] as const) {
      const { key } = await createKey({ name: `keys-no-${role}`, role }, through(app));
      for (const [method, path] of [
        ["POST", "/v1/keys"],
        ["GET", "/v1/keys"],
        ["GET", "/v1/keys/x"],
        ["DELETE", "/v1/keys/x"],
      ] as const) {
        const response = await call(app, path, { method, token: key, ...(method === "POST" ? { body: { name: "x", role: "admin" } } : {}) });
        expect(response.status, `${role} ${method} ${path}`).toBe(403);
        expect(await json(response)).toMatchObject({ error_code: "FORBIDDEN", error: expect.stringContaining("needs the admin role") });
      }
    }
  });
});

describe("GET /v1/keys", () => {
  it("lists keys with their prefixes and never a key or a digest", async () => {
    const created = await createKey({ name: "keys-listed", role: "agent" }, through(app));
    const digest = hashApiKey(created.key);
    const response = await call(app, "/v1/keys");
    const text = await response.text();
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(digest);
    const { keys } = JSON.parse(text) as { keys: CreatedKey[] };
    const listed = keys.find((k) => k.id === created.id);
    expect(listed).toMatchObject({ name: "keys-listed", prefix: created.prefix });
    for (const key of keys)
      expect(Object.keys(key).sort()).toEqual([
        "created_at",
        "created_by",
        "id",
        "kind",
        "name",
        "oauth_client_id",
        "policy",
        "prefix",
        "rate_limit_per_minute",
        "revoked_at",
        "role",
        "scopes",
        "toolsets",
      ]);
    expect(listed).toMatchObject({ kind: "key", oauth_client_id: null });
  });

  it("answers 404 for an unknown id", async () => {
    const response = await call(app, "/v1/keys/does-not-exist");
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error_code: "UNKNOWN_API_KEY" });
  });
});

describe("DELETE /v1/keys/{id}", () => {
  it("revokes a key at once in this isolate, though its lookup was cached", async () => {
    const created = await createKey({ name: "keys-revoke", role: "agent" }, through(app));
    expect((await call(app, "/v1/whoami", { token: created.key })).status).toBe(200);

    expect((await call(app, `/v1/keys/${created.id}`, { method: "DELETE" })).status).toBe(204);

    const refused = await call(app, "/v1/whoami", { token: created.key });
    expect(refused.status).toBe(401);
    expect(await json(refused)).toMatchObject({ error_code: "UNAUTHENTICATED", error: expect.stringContaining("revoked") });
    const shown = await json<CreatedKey>(await call(app, `/v1/keys/${created.id}`));
    expect(shown.revoked_at).toEqual(expect.any(String));
  });

  it("keeps the first revocation time when a key is revoked again", async () => {
    const created = await createKey({ name: "keys-revoke-twice", role: "agent" }, through(app));
    const first = "2020-01-01T00:00:00.000Z";
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(first, created.id).run();
    expect((await call(app, `/v1/keys/${created.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await json<CreatedKey>(await call(app, `/v1/keys/${created.id}`))).revoked_at).toBe(first);
  });

  it("answers 404 for an unknown id", async () => {
    const response = await call(app, "/v1/keys/does-not-exist", { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error_code: "UNKNOWN_API_KEY", error: "No API key has the id 'does-not-exist'." });
  });
});

describe("OpenAPI", () => {
  it("documents the keys routes with their 401 and 403 answers", async () => {
    // A fresh app: routes cannot be added once an app has served a request.
    const documented = authApp();
    documented.doc31("/openapi.json", { openapi: "3.1.0", info: { title: "test", version: "0" } });
    const doc = await json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      await call(documented, "/openapi.json", { token: null }),
    );
    expect(Object.keys(doc.paths["/v1/keys"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/keys/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(doc.paths["/v1/keys"]?.post?.responses ?? {})).toEqual(expect.arrayContaining(["201", "400", "401", "403"]));
  });
});

describe("PATCH /v1/keys/{id}", () => {
  it("changes only the fields sent, with the create body's rules, and the cached principal at once", async () => {
    const created = await createKey({ name: "keys-patch", role: "agent", rate_limit_per_minute: 5 }, through(app));
    const changed = await call(app, `/v1/keys/${created.id}`, { method: "PATCH", body: { policy: { mode: "whitelist", patterns: ["echo"] } } });
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({ policy: { mode: "whitelist", patterns: ["echo"] }, rate_limit_per_minute: 5, toolsets: null });
    const bad = await call(app, `/v1/keys/${created.id}`, { method: "PATCH", body: { rate_limit_per_minute: "5", role: "admin" } });
    expect(bad.status).toBe(400);
    expect((await call(app, "/v1/keys/does-not-exist", { method: "PATCH", body: {} })).status).toBe(404);
  });
});
