/**
 * Every console page when a store it reads is down: D1 (the audit log, keys and OAuth grants,
 * approvals, webhook deliveries), KV (the MCP server list, the sign-ins). A page whose whole
 * content is the store answers 503 with the console's error page; a page with other parts shows
 * them and a notice in place of the missing one. Never a stack trace or the store's own error,
 * and the failure is logged. The stores fail for real (failing-stores.ts).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { federation } from "../../src/mcp/federation/federation.ts";
import { api } from "../support/api.ts";
import { FAKE_MCP_HOST, TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { adminSignIn, consoleCsrf, ORIGIN, PageClient } from "./admin-client.ts";
import { consoleWith, d1WithoutTables, INTERNALS, KV_OUTAGE, kvRefusing } from "./failing-stores.ts";

let brokenDb: D1Database;
let admin: PageClient;

beforeAll(async () => {
  brokenDb = await d1WithoutTables();
  // The ADMIN_TOKEN signs in without D1, so the pages get past sign-in with D1 down.
  admin = new PageClient();
  const signedIn = await adminSignIn(admin, TEST_ADMIN_TOKEN);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
});

afterEach(() => vi.restoreAllMocks());

/** console.error, watched: what the page logged. */
function watchLog(): () => string {
  const spy = vi.spyOn(console, "error");
  return () => spy.mock.calls.map((args) => args.map((a) => (a instanceof Error ? `${a.message}` : String(a))).join(" ")).join("\n");
}

/** The page is the console's (its layout and navigation), with no internals in it. */
function expectConsolePage(html: string, title: RegExp): void {
  expect(html).toContain('<header class="site"><h1><a href="/admin">toolgate admin</a></h1>');
  expect(html).toMatch(title);
  for (const internal of INTERNALS) expect(html).not.toMatch(internal);
}

describe("console pages with D1 down", () => {
  it("answers 503 with a readable error page for the pages whose whole content is in D1: audit, a call, a session, keys and OAuth grants", async () => {
    const client = consoleWith({ DB: brokenDb }, admin);
    const pages: [string, RegExp][] = [
      ["/admin/audit", /<h2>Audit log<\/h2>/],
      ["/admin/audit?tool=echo&status=error", /<h2>Audit log<\/h2>/],
      ["/admin/audit/1777636800000-1", /could not be read/],
      ["/admin/sessions/conv-outage", /could not be read/],
      ["/admin/keys", /Keys could not be listed/],
    ];
    for (const [path, title] of pages) {
      const log = watchLog();
      const response = await client.get(path);
      expect([path, response.status]).toEqual([path, 503]);
      expectConsolePage(client.lastPage, title);
      expect(client.lastPage).toContain("did not answer. The failure was logged; try again in a moment.");
      expect(client.lastPage).not.toContain("No calls match");
      expect(log(), path).toMatch(/no such table/);
      vi.restoreAllMocks();
    }
  });

  it("keeps the overview, tools and webhooks pages, with a notice where the D1 part was", async () => {
    const client = consoleWith({ DB: brokenDb }, admin);
    const pages: [string, string[]][] = [
      ["/admin", ["The audit log (D1)", "The approvals index (D1)", "The webhook deliveries (D1)"]],
      ["/admin/tools", ["The audit log (D1)"]],
      ["/admin/webhooks", ["The webhook deliveries (D1)", "The webhook events (D1)"]],
    ];
    for (const [path, stores] of pages) {
      const log = watchLog();
      expect([path, (await client.get(path)).status]).toEqual([path, 200]);
      expectConsolePage(client.lastPage, /./);
      for (const store of stores) {
        expect(client.lastPage).toContain(`${store} could not be read just now`);
        expect(log()).toContain(`admin console: ${store} unavailable`);
      }
      vi.restoreAllMocks();
    }
    // What does not come from D1 is still there.
    await client.get("/admin/tools");
    expect(client.lastPage).toContain('data-tool="echo"');
    await client.get("/admin/webhooks");
    expect(client.lastPage).toContain('data-hook="generic"');
  });
});

describe("console changes a store cannot take", () => {
  it("answers a key created with D1 down, or a server added with KV down, with 503 and the error page; nothing is kept", async () => {
    const keyName = `outage-key-${crypto.randomUUID().slice(0, 8)}`;
    const d1Down = consoleWith({ DB: brokenDb }, admin);
    const csrf = await consoleCsrf(d1Down);
    let log = watchLog();
    expect((await d1Down.post("/admin/keys", { csrf, name: keyName, role: "agent" })).status).toBe(503);
    expectConsolePage(d1Down.lastPage, /did not answer/);
    expect(log()).toMatch(/admin console: POST \/v1\/keys failed[\s\S]*no such table/);
    vi.restoreAllMocks();
    const keys = (await (await api("/v1/keys")).json()) as { keys: { name: string }[] };
    expect(keys.keys.map((k) => k.name)).not.toContain(keyName);

    const serverName = `outage-add-${crypto.randomUUID().slice(0, 8)}`;
    const kvDown = consoleWith({ KV: kvRefusing(["mcp:"]) }, admin);
    log = watchLog();
    expect((await kvDown.post("/admin/mcp-servers", { csrf, name: serverName, url: `http://${FAKE_MCP_HOST}/pinned`, headers: "", pin: "warn" })).status).toBe(
      503,
    );
    expectConsolePage(kvDown.lastPage, /did not answer|could not be read/);
    expect(log()).toContain(KV_OUTAGE);
    expect((await api(`/v1/mcp-servers/${serverName}`)).status).toBe(404);
  });
});

describe("not an outage", () => {
  it("answers a form body the runtime cannot parse with 400, not the outage page", async () => {
    const client = consoleWith({}, admin);
    const csrf = await consoleCsrf(client);
    for (const contentType of ["multipart/form-data; boundary=zzz", "multipart/form-data"]) {
      const response = await client.post("/admin/keys", new URLSearchParams({ csrf, name: "x" }), {
        origin: ORIGIN,
        "sec-fetch-site": "same-origin",
        "content-type": contentType,
      });
      expect([contentType, response.status]).toEqual([contentType, 400]);
      expectConsolePage(client.lastPage, /The form could not be read/);
    }
  });
});

describe("console pages with KV down", () => {
  it("shows the console's error page for the MCP servers list when KV cannot be read, not an empty list", async () => {
    const name = `outage-${crypto.randomUUID().slice(0, 8)}`;
    expect((await api("/v1/mcp-servers", { body: { name, url: `http://${FAKE_MCP_HOST}/pinned` } })).status).toBe(201);
    const healthy = consoleWith({}, admin);
    await healthy.get("/admin/mcp-servers");
    expect(healthy.lastPage).toContain(`data-server="${name}"`);

    // The list lives in this isolate's memory and is re-read from KV every 30 s: 31 s later, KV is down.
    const client = consoleWith({ KV: kvRefusing(["mcp:"]) }, admin);
    const log = watchLog();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 31_000 });
    try {
      expect((await client.get("/admin/mcp-servers")).status).toBe(503);
    } finally {
      vi.useRealTimers();
    }
    expectConsolePage(client.lastPage, /MCP servers could not be listed/);
    expect(client.lastPage).toContain("could not be read");
    expect(log()).toContain(KV_OUTAGE);

    // An isolate that never read the list is in the same position: still the error page, never "0 servers".
    federation.reset();
    expect((await client.get("/admin/mcp-servers")).status).toBe(503);
    expect(client.lastPage).not.toContain("MCP servers (0)");

    // KV back: the list again.
    expect((await healthy.get("/admin/mcp-servers")).status).toBe(200);
    expect(healthy.lastPage).toContain(`data-server="${name}"`);
    await api(`/v1/mcp-servers/${name}`, { method: "DELETE" });
  });

  it("keeps the tools page when the availability cache in KV cannot be read: checks run in the isolate instead", async () => {
    const refused: string[] = [];
    const client = consoleWith({ KV: kvRefusing(["avail:", "toolset:"], refused) }, admin);
    // Every check runs now, past both cache levels: its KV write is refused.
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/tools/recheck", { csrf })).status).toBe(200);
    expect((await client.get("/admin/tools")).status).toBe(200);
    expectConsolePage(client.lastPage, /<h2>Tools \(\d+\)<\/h2>/);
    expect(client.lastPage).toContain('data-tool="echo"');
    expect(refused.some((key) => key.startsWith("avail:"))).toBe(true);
  });

  it("answers every page with 503 and the error page when the sign-in store cannot be read", async () => {
    const client = consoleWith({ KV: kvRefusing(["approvals-session:"]) }, admin);
    for (const path of ["/admin", "/admin/audit", "/admin/keys", "/admin/tools", "/admin/mcp-servers", "/admin/webhooks", "/admin/schedules"]) {
      const log = watchLog();
      expect([path, (await client.get(path)).status]).toEqual([path, 503]);
      for (const internal of INTERNALS) expect(client.lastPage).not.toMatch(internal);
      expect(client.lastPage).toContain("try again in a moment");
      expect(log()).toContain(KV_OUTAGE);
      vi.restoreAllMocks();
    }
  });
});
