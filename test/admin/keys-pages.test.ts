/**
 * The keys page: list, create (the key shown once), revoke, through POST /v1/keys and
 * DELETE /v1/keys/{id}; bad input in every field gets the API's message; approvers and agents
 * change nothing.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";

const asKey = (key: string | undefined) => ({ headers: { authorization: `Bearer ${key ?? ""}` } });

import { createKey } from "../support/create-key.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

const form = (fields: Record<string, string>) => ({ role: "agent", toolsets: "", policy_mode: "deny", patterns: "", rate_limit: "", ...fields });

describe("the keys page", () => {
  it("creates a key with toolsets, policy and rate limit, showing the key once; the key works", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const name = `made-in-console-${crypto.randomUUID()}`;
    const response = await client.post("/admin/keys", {
      csrf,
      ...form({ name, toolsets: "core", policy_mode: "whitelist", patterns: "echo, time_*", rate_limit: "120" }),
    });
    expect(response.status).toBe(201);
    const key = /data-new-key[^>]*>([^<]+)</.exec(client.lastPage)?.[1];
    expect(key).toMatch(/^tg_/);
    expect(client.lastPage).toContain("shown only this once");
    const row = new RegExp(`<tr data-key-id="[^"]+"><td>${name}[\\s\\S]*?</tr>`).exec(client.lastPage)?.[0] ?? "";
    expect(row).toContain("whitelist: echo, time_*");
    expect(row).toContain("120/min");
    expect((await api("/v1/tools", asKey(key))).status).toBe(200);
    // Never again: the list shows the prefix only.
    await client.get("/admin/keys");
    expect(client.lastPage).not.toContain(key);
  });

  it("revokes a key, whose next call is refused", async () => {
    const victim = await createKey({ name: `victim-${crypto.randomUUID()}`, role: "agent" });
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const response = await client.post(`/admin/keys/${victim.id}/revoke`, { csrf });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/admin/keys?revoked=${victim.id}`);
    expect((await api("/v1/tools", asKey(victim.key))).status).toBe(401);
    expect((await client.post(`/admin/keys/no-such-key/revoke`, { csrf })).status).toBe(404);
  });

  it("answers every bad field with the API's message and keeps what was typed, markup inert", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const cases: [Record<string, string>, string][] = [
      [{ name: "" }, "name"],
      [{ name: "n".repeat(101) }, "name"],
      [{ name: "ok", role: "root" }, "role"],
      [{ name: "ok", toolsets: "no-such-toolset" }, "unknown toolset"],
      [{ name: "ok", policy_mode: "maybe" }, "policy.mode"],
      [{ name: "ok", patterns: "<script>" }, "policy.patterns"],
      [{ name: "ok", rate_limit: "fast" }, "rate_limit_per_minute"],
      [{ name: "ok", rate_limit: "0" }, "rate_limit_per_minute"],
      [{ name: "ok", rate_limit: "99999999999999999999" }, "rate_limit_per_minute"],
    ];
    for (const [fields, message] of cases) {
      const response = await client.post("/admin/keys", { csrf, ...form(fields) });
      expect([fields, response.status]).toEqual([fields, 400]);
      expect(client.lastPage).toContain(message);
    }
    await client.post("/admin/keys", { csrf, ...form({ name: "ok", toolsets: "<img src=x onerror=alert(1)>" }) });
    expect(client.lastPage).not.toContain("<img src=x");
    expect(client.lastPage).toContain('value="&lt;img src=x onerror=alert(1)&gt;"');
  });

  it("renders a key name holding markup as text", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/keys", { csrf, ...form({ name: "<script>alert(1)</script>" }) })).status).toBe(201);
    expect(client.lastPage).not.toContain("<script>alert");
    expect(client.lastPage).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("refuses an approver: the API's admin-only rule, shown as a page, and nothing created or revoked", async () => {
    const victim = await createKey({ name: `kept-${crypto.randomUUID()}`, role: "agent" });
    const { client } = await signedInAs("approver");
    expect((await client.get("/admin/keys")).status).toBe(403);
    expect(client.lastPage).toContain("the admin console needs an admin key");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/keys", { csrf, ...form({ name: "by-approver" }) })).status).toBe(403);
    expect((await client.post(`/admin/keys/${victim.id}/revoke`, { csrf })).status).toBe(403);
    expect((await api("/v1/tools", asKey(victim.key))).status).toBe(200);
  });
});

describe("changing a key's access", () => {
  it("changes toolsets, policy and rate limit through PATCH /v1/keys/{id}; the key's next call obeys", async () => {
    const target = await createKey({ name: `access-${crypto.randomUUID()}`, role: "agent" });
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const response = await client.post(`/admin/keys/${target.id}/access`, {
      csrf,
      toolsets: "core",
      policy_mode: "whitelist",
      patterns: "echo",
      rate_limit: "30",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/admin/keys?changed=${target.id}`);
    const record = (await (await api(`/v1/keys/${target.id}`)).json()) as { toolsets: string[]; policy: unknown; rate_limit_per_minute: number };
    expect(record).toMatchObject({ toolsets: ["core"], policy: { mode: "whitelist", patterns: ["echo"] }, rate_limit_per_minute: 30 });
    const tools = (await (await api("/v1/tools?format=openai", asKey(target.key))).json()) as { tools?: { function?: { name: string } }[] };
    expect(JSON.stringify(tools)).toContain('"echo"');
    expect(JSON.stringify(tools)).not.toContain('"fetch_url"');

    // Emptied fields read as "every toolset", "no pattern", "the default limit".
    expect((await client.post(`/admin/keys/${target.id}/access`, { csrf, toolsets: "", policy_mode: "deny", patterns: "", rate_limit: "" })).status).toBe(303);
    expect(await (await api(`/v1/keys/${target.id}`)).json()).toMatchObject({
      toolsets: null,
      policy: { mode: "deny", patterns: [] },
      rate_limit_per_minute: null,
    });
  });

  it("answers bad access fields with the API's message and changes nothing", async () => {
    const target = await createKey({ name: `access-bad-${crypto.randomUUID()}`, role: "agent", rate_limit_per_minute: 10 });
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    for (const [fields, message] of [
      [{ rate_limit: "lots" }, "rate_limit_per_minute"],
      [{ toolsets: "nope<script>" }, "unknown toolset"],
      [{ policy_mode: "sometimes" }, "policy.mode"],
      [{ patterns: "a b" }, "policy.patterns"],
    ] as const) {
      const response = await client.post(`/admin/keys/${target.id}/access`, {
        csrf,
        toolsets: "",
        policy_mode: "deny",
        patterns: "",
        rate_limit: "",
        ...fields,
      });
      expect([fields, response.status]).toEqual([fields, 400]);
      expect(client.lastPage).toContain(message);
      expect(client.lastPage).not.toContain("nope<script>");
    }
    expect(await (await api(`/v1/keys/${target.id}`)).json()).toMatchObject({ rate_limit_per_minute: 10 });
    expect((await client.post(`/admin/keys/no-such-key/access`, { csrf, toolsets: "" })).status).toBe(404);
  });

  it("refuses an approver", async () => {
    const target = await createKey({ name: `access-kept-${crypto.randomUUID()}`, role: "agent" });
    const { client } = await signedInAs("approver");
    const csrf = await consoleCsrf(client);
    expect((await client.post(`/admin/keys/${target.id}/access`, { csrf, toolsets: "core" })).status).toBe(403);
    expect(await (await api(`/v1/keys/${target.id}`)).json()).toMatchObject({ toolsets: null });
  });
});
