/**
 * The admin console as a person uses it, in a real browser against the real Worker: sign in with
 * an admin key, create an agent key (shown once), let the agent make calls through /v1, see them
 * on the overview's chart and in the audit list, open one call, revoke the key and see the
 * agent's next call refused. Then the later pages: a tool's three schema shapes and its re-check,
 * an MCP server added with a header secret by name (a loopback server that answers only with it),
 * its tools, disabling it, and a webhook delivery with its events. Screenshots at desktop and
 * phone width go to test-artifacts/admin/; no page may scroll sideways at phone width.
 */
import { createHmac } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiCall } from "../support/tool-calls.ts";
import { type Browser, chromiumAvailability, launchChromium } from "./support/chromium.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";
import { type McpLoopback, startMcpLoopback } from "./support/mcp-loopback.ts";

const ADMIN_TOKEN = `tg_browser_admin_${crypto.randomUUID().replaceAll("-", "")}`;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/admin/", import.meta.url));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

const availability = chromiumAvailability();
if (!availability.run) console.warn(`\n!!! SKIPPING the admin console browser test: ${availability.message}\n`);

const MCP_TOKEN = `mcp-token-${crypto.randomUUID()}`;
const HOOK_SECRET = `hook-secret-${crypto.randomUUID()}`;

let worker: LocalWorker;
let mcp: McpLoopback;
let browser: Browser;
let page: Page;
let adminKey: string;
let agentKey = "";
const sessionId = `console-browser-${crypto.randomUUID()}`;

async function api(path: string, key: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${worker.origin}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** One batch of the agent's: two echo calls and one with arguments echo refuses. */
const agentBatch = () =>
  api("/v1/tool-calls", agentKey, {
    session_id: sessionId,
    tool_calls: [openaiCall("call_a", "echo", { text: "one" }), openaiCall("call_b", "echo", { text: "two" }), openaiCall("call_c", "echo", { text: 42 })],
  });

const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
const pageWidth = () => page.evaluate<number>("document.documentElement.scrollWidth");
/** How far the page scrolls sideways (0: it fits the viewport). */
const overflow = () => page.evaluate<number>("document.scrollingElement.scrollWidth - window.innerWidth");

/** A desktop screenshot, then one at phone width after checking nothing sticks out sideways. */
async function shotBoth(name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await shot(`${name}-desktop`);
  await page.setViewportSize(PHONE);
  try {
    expect(await overflow(), name).toBeLessThanOrEqual(0);
    await shot(`${name}-phone`);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
}

describe.skipIf(!availability.run)("the admin console in chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    mcp = await startMcpLoopback(MCP_TOKEN);
    worker = await startLocalWorker({
      port: 0,
      secrets: { ADMIN_TOKEN, BROWSER_MCP_TOKEN: MCP_TOKEN, HOOK_GENERIC_SECRET: HOOK_SECRET },
      vars: { OUTBOUND_ALLOW: `127.0.0.1:${mcp.port}` },
    });
    const created = await api("/v1/keys", ADMIN_TOKEN, { name: "browser-admin", role: "admin" });
    expect(created.status).toBe(201);
    adminKey = (created.json as { key: string }).key;
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize(DESKTOP);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
    await mcp?.close();
  }, 60_000);

  it("signs in with an admin key and lands on the overview", async () => {
    await page.goto(`${worker.origin}/admin`);
    await eventually(() => page.title()).toBe("Sign in · toolgate admin");
    await page.getByLabel("API key").fill(adminKey);
    await shot("01-sign-in");
    await Promise.all([page.waitForURL(`${worker.origin}/admin`), page.getByRole("button", { name: "Sign in" }).click()]);
    await eventually(() => page.locator("header").textContent()).toContain("Signed in as browser-admin (admin)");
    expect(await page.getByRole("navigation", { name: "Sections" }).textContent()).toContain("Keys");
  }, 60_000);

  it("creates an agent key, shown once as selectable text", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Keys" }).click();
    await page.getByLabel("Name").fill("browser-agent");
    await page.getByLabel("Role").selectOption("agent");
    await page.getByRole("button", { name: "Create key" }).click();
    await eventually(() => page.getByRole("status").textContent()).toContain("shown only this once");
    agentKey = ((await page.locator("[data-new-key]").textContent()) ?? "").trim();
    expect(agentKey).toMatch(/^tg_/);
    await shot("02-key-created");
  }, 60_000);

  it("shows the agent's calls on the overview chart and in the audit list", async () => {
    for (let i = 0; i < 2; i++) expect((await agentBatch()).status).toBe(200);
    // Records reach D1 through the audit queue, a moment after each call.
    await eventually(async () => {
      await page.goto(`${worker.origin}/admin?window=hour`);
      return Number(await page.locator('[data-figure="calls"]').textContent());
    }).toBeGreaterThanOrEqual(6);
    expect(Number(await page.locator('[data-figure="errors"]').textContent())).toBeGreaterThanOrEqual(2);
    // The chart's bars, read from the SVG the page shows (this Node project has no DOM types).
    const bars = await page
      .locator("figure.chart g[data-calls]")
      .evaluateAll((gs: { getAttribute(name: string): string | null }[]) => gs.map((g) => Number(g.getAttribute("data-calls"))));
    expect(bars.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(6);
    expect(await page.locator("figure.chart svg").first().isVisible()).toBe(true);
    await shot("03-overview-desktop");
    await page.setViewportSize(PHONE);
    expect(await pageWidth()).toBeLessThanOrEqual(PHONE.width);
    await shot("04-overview-phone");
    await page.setViewportSize(DESKTOP);

    await page.goto(`${worker.origin}/admin/audit?${new URLSearchParams({ session_id: sessionId }).toString()}`);
    await eventually(() => page.locator("tbody tr").count()).toBe(6);
    expect(await page.locator("tbody").textContent()).toContain("INVALID_ARGUMENTS");
    await shot("05-audit-desktop");
    await page.setViewportSize(PHONE);
    expect(await pageWidth()).toBeLessThanOrEqual(PHONE.width);
    await shot("06-audit-phone");
    await page.setViewportSize(DESKTOP);
  }, 90_000);

  it("opens a call's detail from the list", async () => {
    const failed = page.locator("tbody tr", { hasText: "INVALID_ARGUMENTS" }).first();
    await Promise.all([page.waitForURL(/\/admin\/audit\/\d+-\d+$/), failed.getByRole("link").first().click()]);
    await eventually(() => page.getByRole("heading", { level: 2 }).textContent()).toBe("Call of echo");
    const facts = (await page.locator("dl.facts").textContent()) ?? "";
    expect(facts).toContain("INVALID_ARGUMENTS");
    expect(facts).toContain(sessionId);
    expect(await page.locator("pre").textContent()).toContain('"text": 42');
    await shot("07-call-detail");
  }, 60_000);

  it("revokes the agent's key; its next call is refused", async () => {
    await page.goto(`${worker.origin}/admin/keys`);
    await Promise.all([page.waitForURL(/\/admin\/keys\?revoked=/), page.getByRole("button", { name: "Revoke browser-agent" }).click()]);
    await eventually(() => page.getByRole("status").textContent()).toContain("revoked");
    await shot("08-key-revoked");
    await page.setViewportSize(PHONE);
    expect(await pageWidth()).toBeLessThanOrEqual(PHONE.width);
    await shot("09-keys-phone");
    const refused = await agentBatch();
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ error_code: "UNAUTHENTICATED" });
  }, 60_000);

  it("shows a tool's three schema shapes and re-checks it", async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${worker.origin}/admin/tools`);
    await eventually(() => page.locator('tr[data-tool="echo"]').textContent()).toContain("available");
    await shotBoth("10-tools");
    await Promise.all([page.waitForURL(`${worker.origin}/admin/tools/echo`), page.locator('tr[data-tool="echo"]').getByRole("link", { name: "echo" }).click()]);
    for (const shape of ["openai", "anthropic", "mcp"])
      expect(
        await page
          .getByRole("region", { name: `${shape} shape` })
          .locator("pre")
          .textContent(),
      ).toContain("text");
    expect(await page.getByRole("region", { name: "openai shape" }).textContent()).toContain('"parameters"');
    expect(await page.getByRole("region", { name: "anthropic shape" }).textContent()).toContain('"input_schema"');
    expect(await page.getByRole("region", { name: "mcp shape" }).textContent()).toContain('"inputSchema"');
    await shotBoth("11-tool-detail");
    await page.getByRole("button", { name: "Re-check echo" }).click();
    await eventually(() => page.getByRole("status").textContent()).toContain("Re-checked echo");
  }, 60_000);

  it("adds an MCP server with a header secret by name, lists its tools, and disables it", async () => {
    await page.goto(`${worker.origin}/admin/mcp-servers`);
    await page.getByLabel("Name", { exact: true }).fill("loopback");
    await page.getByLabel("URL of its MCP endpoint").fill(`http://127.0.0.1:${mcp.port}/pinned`);
    await page.getByLabel("Headers from secrets, one per line: Header-Name: SECRET_NAME").fill("X-Token: BROWSER_MCP_TOKEN");
    await page.getByRole("button", { name: "Add server" }).click();
    await eventually(() => page.getByRole("status").textContent()).toContain("loopback added with 4 tools");
    const card = page.getByRole("region", { name: "MCP server loopback" });
    // The server answers only with the secret's value in X-Token: its tools prove the header arrived.
    expect(await card.locator("tr[data-tool]").count()).toBe(4);
    expect(await card.textContent()).toContain("X-Token ← BROWSER_MCP_TOKEN");
    expect(await card.textContent()).not.toContain(MCP_TOKEN);
    await shotBoth("12-mcp-servers");
    await Promise.all([page.waitForURL(/\/admin\/mcp-servers\?disabled=loopback$/), card.getByRole("button", { name: "Disable loopback" }).click()]);
    await eventually(() => page.getByRole("status").textContent()).toContain("loopback disabled");
    expect(await page.getByRole("region", { name: "MCP server loopback" }).textContent()).toContain("disabled");
  }, 60_000);

  it("lists a webhook delivery with its events", async () => {
    const body = JSON.stringify({ tool_calls: [openaiCall("hook_a", "echo", { text: "from a hook" })] });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac("sha256", HOOK_SECRET).update(`${timestamp}.${body}`).digest("hex")}`;
    const sent = await fetch(`${worker.origin}/v1/hooks/generic`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-toolgate-timestamp": timestamp, "x-toolgate-signature-256": signature },
      body,
    });
    expect(sent.status).toBe(202);
    const { delivery_id: deliveryId } = (await sent.json()) as { delivery_id: string };
    // The queue runs it a moment later.
    await eventually(async () => {
      await page.goto(`${worker.origin}/admin/webhooks`);
      return page.locator(`tr[data-delivery="${deliveryId}"]`).textContent();
    }).toContain("done");
    expect(await page.getByRole("region", { name: "Recent events" }).textContent()).toContain(deliveryId);
    await shotBoth("13-webhooks");
  }, 60_000);
});
