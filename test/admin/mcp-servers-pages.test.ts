/**
 * The MCP servers page: servers with their state, offered and refused tools; add, disable and
 * enable, refresh, remove, all through /v1/mcp-servers (admin only); bad input gets the API's
 * message with markup inert; approvers and agents change nothing; CSRF and Origin are checked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { FAKE_MCP_HOST } from "../support/test-env.ts";
import { adminSignIn, consoleCsrf, PageClient, signedInAs } from "./admin-client.ts";

const PINNED_URL = `http://${FAKE_MCP_HOST}/pinned`;
const NAMES_URL = `http://${FAKE_MCP_HOST}/names`;
const added: string[] = [];
const serverName = (what: string) => {
  const name = `${what}-${crypto.randomUUID().slice(0, 8)}`;
  added.push(name);
  return name;
};
const form = (fields: Record<string, string>) => ({ headers: "", pin: "warn", ...fields });

afterEach(async () => {
  for (const name of added.splice(0)) await api(`/v1/mcp-servers/${name}`, { method: "DELETE" });
});

const cardOf = (page: string, name: string) => new RegExp(`<section[^>]*data-server="${name}"[\\s\\S]*?</section>`).exec(page)?.[0] ?? "";

describe("the MCP servers page", () => {
  it("adds a server with header secrets by name, lists its state and offered tools, refuses tools with the reason", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const name = serverName("pinned");
    const response = await client.post("/admin/mcp-servers", {
      csrf,
      ...form({ name, url: PINNED_URL, headers: "X-Token: FAKE_MCP_TOKEN\n\n", pin: "block" }),
    });
    expect(response.status).toBe(201);
    expect(client.lastPage).toContain(`${name} added with`);
    const card = cardOf(client.lastPage, name);
    expect(card).toContain("enabled");
    expect(card).toContain("X-Token ← FAKE_MCP_TOKEN");
    expect(card).toMatch(/data-tool="mcp__[^"]+__greet"/);
    const stored = (await (await api(`/v1/mcp-servers/${name}`)).json()) as { headers: unknown; pin: string };
    expect(stored).toMatchObject({ headers: { "X-Token": { secret: "FAKE_MCP_TOKEN" } }, pin: "block" });

    const names = serverName("names");
    expect((await client.post("/admin/mcp-servers", { csrf, ...form({ name: names, url: NAMES_URL }) })).status).toBe(201);
    expect(cardOf(client.lastPage, names)).toContain("Refused tools");
  });

  it("disables and enables through PUT, keeping the rest of the configuration; refreshes; removes", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const name = serverName("toggle");
    await client.post("/admin/mcp-servers", { csrf, ...form({ name, url: PINNED_URL, headers: "X-Token: FAKE_MCP_TOKEN", pin: "block" }) });

    const disabled = await client.post(`/admin/mcp-servers/${name}/disable`, { csrf });
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get("location")).toBe(`/admin/mcp-servers?disabled=${name}`);
    expect(await (await api(`/v1/mcp-servers/${name}`)).json()).toMatchObject({
      enabled: false,
      pin: "block",
      headers: { "X-Token": { secret: "FAKE_MCP_TOKEN" } },
    });
    await client.get(`/admin/mcp-servers?disabled=${name}`);
    expect(client.lastPage).toContain(`${name} disabled`);
    expect(cardOf(client.lastPage, name)).toContain(`aria-label="Enable ${name}"`);

    expect((await client.post(`/admin/mcp-servers/${name}/enable`, { csrf })).status).toBe(303);
    expect(await (await api(`/v1/mcp-servers/${name}`)).json()).toMatchObject({ enabled: true, pin: "block" });

    const refreshed = await client.post(`/admin/mcp-servers/${name}/refresh`, { csrf });
    expect(refreshed.headers.get("location")).toBe(`/admin/mcp-servers?refreshed=${name}`);

    expect((await client.post(`/admin/mcp-servers/${name}/remove`, { csrf })).status).toBe(303);
    expect((await api(`/v1/mcp-servers/${name}`)).status).toBe(404);
    for (const action of ["remove", "refresh", "enable", "disable", "sign-in"]) {
      expect([action, (await client.post(`/admin/mcp-servers/${name}/${action}`, { csrf })).status]).toEqual([action, 404]);
    }
  });

  it("answers every bad field with the API's message, keeps what was typed, and renders markup inert", async () => {
    added.push("ok");
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const cases: [Record<string, string>, string][] = [
      [{ name: "", url: PINNED_URL }, "name"],
      [{ name: "no spaces", url: PINNED_URL }, "name"],
      [{ name: "n".repeat(40), url: PINNED_URL }, "name"],
      [{ name: "ok", url: "ftp://example.com/mcp" }, "url"],
      [{ name: "ok", url: "not a url" }, "url"],
      [{ name: "ok", url: "http://127.0.0.1:9/mcp" }, "OUTBOUND_ALLOW"],
      [{ name: "ok", url: PINNED_URL, headers: "Authorization" }, "headers.Authorization"],
      [{ name: "ok", url: PINNED_URL, headers: "Authorization: Bearer abc" }, "headers.Authorization"],
      [{ name: "ok", url: PINNED_URL, headers: "Bad Header: TOKEN" }, "header"],
      [{ name: "ok", url: PINNED_URL, headers: "Mcp-Session-Id: TOKEN" }, "may not set"],
      [{ name: "ok", url: PINNED_URL, pin: "maybe" }, "pin"],
    ];
    for (const [fields, message] of cases) {
      const response = await client.post("/admin/mcp-servers", { csrf, ...form(fields) });
      expect([fields.name?.slice(0, 10), fields.url?.slice(0, 40), fields.headers, response.status]).toEqual([
        fields.name?.slice(0, 10),
        fields.url?.slice(0, 40),
        fields.headers,
        400,
      ]);
      expect(client.lastPage).toContain(message);
    }
    await client.post("/admin/mcp-servers", {
      csrf,
      ...form({ name: "<script>alert(1)</script>", url: PINNED_URL, headers: "<img src=x onerror=alert(1)>: X" }),
    });
    expect(client.lastPage).not.toContain("<script>alert");
    expect(client.lastPage).not.toContain("<img src=x");
    expect(client.lastPage).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect((await api("/v1/mcp-servers/ok")).status).toBe(404);
    // A form too large for the console's limit never reaches the API.
    expect((await client.post("/admin/mcp-servers", { csrf, ...form({ name: "big", url: PINNED_URL, headers: "X: Y\n".repeat(5_000) }) })).status).toBe(413);
  });

  it("refuses an approver the page and every change, and an agent the sign-in", async () => {
    const admin = await signedInAs("admin");
    const name = serverName("kept");
    await admin.client.post("/admin/mcp-servers", { csrf: await consoleCsrf(admin.client), ...form({ name, url: PINNED_URL }) });

    const { client } = await signedInAs("approver");
    expect((await client.get("/admin/mcp-servers")).status).toBe(403);
    expect(client.lastPage).toContain("the admin console needs an admin key");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/mcp-servers", { csrf, ...form({ name: serverName("by-approver"), url: PINNED_URL }) })).status).toBe(403);
    for (const action of ["disable", "refresh", "remove", "sign-in"]) {
      expect([action, (await client.post(`/admin/mcp-servers/${name}/${action}`, { csrf })).status]).toEqual([action, 403]);
    }
    expect(await (await api(`/v1/mcp-servers/${name}`)).json()).toMatchObject({ enabled: true });

    const agent = await createKey({ name: `mcp-agent-${crypto.randomUUID()}`, role: "agent" });
    const refused = new PageClient();
    expect((await adminSignIn(refused, agent.key)).status).toBe(403);
    expect((await refused.get("/admin/mcp-servers")).status).toBe(401);
    expect(refused.lastPage).not.toContain(name);
  });

  it("refuses a change without the session's CSRF token or from another origin", async () => {
    const { client } = await signedInAs("admin");
    const name = serverName("csrf");
    await client.post("/admin/mcp-servers", { csrf: await consoleCsrf(client), ...form({ name, url: PINNED_URL }) });
    expect((await client.post(`/admin/mcp-servers/${name}/remove`, {})).status).toBe(403);
    expect((await client.post(`/admin/mcp-servers/${name}/remove`, { csrf: "A".repeat(43) })).status).toBe(403);
    expect((await client.post("/admin/mcp-servers", { ...form({ name: serverName("no-csrf"), url: PINNED_URL }) })).status).toBe(403);
    const csrf = await consoleCsrf(client);
    expect((await client.post(`/admin/mcp-servers/${name}/disable`, { csrf }, { origin: "https://evil.example" })).status).toBe(403);
    expect(await (await api(`/v1/mcp-servers/${name}`)).json()).toMatchObject({ enabled: true });
  });
});
