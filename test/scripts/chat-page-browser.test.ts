/**
 * The chat page as a person uses it, in a real browser against the real Worker (`wrangler dev`)
 * whose model is the scripted one on loopback: sign in with an agent key, send a message holding
 * HTML, watch the run's tool call and answer arrive without a reload (the page's one script
 * following the run's events), expand the call, reply, and watch a call wait for approval and the
 * run go on once it is decided. Screenshots at desktop and phone
 * width go to test-artifacts/chat/.
 */
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, chromiumAvailability, launchChromium } from "./support/chromium.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";
import { ANSWER_PREFIX, type ScriptedModel, startScriptedModel } from "./support/scripted-model.ts";

const ADMIN_TOKEN = `tg_browser_admin_${crypto.randomUUID().replaceAll("-", "")}`;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/chat/", import.meta.url));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };
const PAYLOAD = `<img src=x onerror="document.title='pwned'">`;

const availability = chromiumAvailability();
if (!availability.run) console.warn(`\n!!! SKIPPING the chat page browser test: ${availability.message}\n`);

let worker: LocalWorker;
let model: ScriptedModel;
let browser: Browser;
let page: Page;
let agentKey: string;
const pageErrors: string[] = [];

const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

describe.skipIf(!availability.run)("the chat page in chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    // Each model turn takes a while, so the run page is first shown while the run still goes on.
    // Streamed chunks come 120 ms apart, so the answer is seen growing before the run completes.
    model = await startScriptedModel({
      delayMs: 1500,
      chunkDelayMs: 120,
      callFor: (text) => (text.includes("delete") ? { name: "delete_result", arguments: { handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" } } : undefined),
    });
    worker = await startLocalWorker({
      port: 0,
      secrets: { ADMIN_TOKEN, MODEL_API_KEY: "scripted" },
      vars: { MODEL_BASE_URL: `${model.origin}/v1`, MODEL_NAME: "scripted-model" },
    });
    const created = await fetch(`${worker.origin}/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "browser-chat", role: "agent" }),
    });
    expect(created.status).toBe(201);
    agentKey = ((await created.json()) as { key: string }).key;
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    // Script errors and CSP refusals ("Refused to ..."); a 401 sign-in page or a missing favicon logs a load failure, which is not one.
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text());
    });
    await page.setViewportSize(DESKTOP);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
    await model?.close();
  }, 60_000);

  it("signs in with an agent key", async () => {
    await page.goto(`${worker.origin}/chat`);
    await eventually(() => page.title()).toBe("Sign in · toolgate chat");
    await page.getByLabel("API key").fill(agentKey);
    await Promise.all([page.waitForURL(`${worker.origin}/chat`), page.getByRole("button", { name: "Sign in" }).click()]);
    await eventually(() => page.locator("header").textContent()).toContain("Signed in as browser-chat (agent)");
    await shot("01-home");
  }, 60_000);

  it("sends a message and sees the tool call and the answer arrive without a reload", async () => {
    await page.getByLabel("Your message").fill(`Echo this for me: ${PAYLOAD}`);
    await Promise.all([page.waitForURL(/\/chat\/runs\/[\w-]+$/), page.getByRole("button", { name: "Send" }).click()]);
    expect(await page.locator("#run").getAttribute("data-events")).toMatch(/\/events$/);
    // A mark on this document: if the page reloaded, it would be gone.
    await page.evaluate("window.stillTheSamePage = true");
    await shot("02-running");
    // The live item exists only while the run goes on: text in it is the answer streaming in.
    await eventually(() => page.locator("#live-text").textContent()).toContain(ANSWER_PREFIX.slice(0, 8));
    await shot("02b-streaming");
    await eventually(() => page.locator("#run").textContent()).toContain(ANSWER_PREFIX);
    await eventually(() => page.locator("#run .status").first().textContent()).toBe("completed");
    expect(await page.evaluate("window.stillTheSamePage")).toBe(true);
    // The payload is text on the page, never an element.
    expect(await page.locator("ol.transcript").textContent()).toContain(PAYLOAD);
    expect(await page.locator("ol.transcript img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("expands the tool call to show its arguments and result", async () => {
    const call = page.locator("details", { has: page.locator("summary", { hasText: "echo" }) }).first();
    await call.locator("summary").click();
    expect(await call.getAttribute("open")).not.toBeNull();
    expect(await call.locator("pre").first().textContent()).toContain('"text": "hello"');
    await shot("03-answered-call-open");
    await page.setViewportSize(PHONE);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
    await shot("04-answered-phone");
    await page.setViewportSize(DESKTOP);
  }, 60_000);

  it("replies in the same conversation", async () => {
    const first = page.url();
    await page.getByLabel("Reply").fill("And once more?");
    await Promise.all([
      page.waitForURL((url) => url.href !== first && /\/chat\/runs\/[\w-]+$/.test(url.pathname)),
      page.getByRole("button", { name: "Send" }).click(),
    ]);
    await eventually(() => page.locator("#run .status").first().textContent()).toBe("completed");
    expect(await page.locator("ol.transcript > li.user").count()).toBe(2);
    await shot("05-reply");
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("links a call waiting for approval, and follows the run once the approval is decided", async () => {
    await page.goto(`${worker.origin}/chat`);
    await page.getByLabel("Your message").fill("Please delete that stored result.");
    await Promise.all([page.waitForURL(/\/chat\/runs\/[\w-]+$/), page.getByRole("button", { name: "Send" }).click()]);
    await page.evaluate("window.stillTheSamePage = true");
    const link = page.locator("#run a", { hasText: "approval" });
    await eventually(() => link.count()).toBe(1);
    const href = (await link.getAttribute("href")) ?? "";
    expect(href).toMatch(/\/approvals\/[\w-]+/);
    await shot("06-awaiting-approval");
    const runId = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    const run = (await (await fetch(`${worker.origin}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${agentKey}` } })).json()) as {
      session_id: string;
      pending_approvals: { approval_id: string }[];
    };
    const approvalId = run.pending_approvals[0]?.approval_id ?? "";
    expect(href).toContain(approvalId);
    const decided = await fetch(`${worker.origin}/v1/approvals/${approvalId}?session_id=${run.session_id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "deny", scope: "once", reason: "keep it for now" }),
    });
    expect(decided.status).toBe(200);
    await eventually(() => page.locator("#run .status").first().textContent()).toBe("completed");
    expect(await page.locator("#run a", { hasText: "approval" }).count()).toBe(0);
    expect(await page.locator("#run summary", { hasText: "delete_result" }).textContent()).toContain("APPROVAL_DENIED");
    expect(await page.evaluate("window.stillTheSamePage")).toBe(true);
    await shot("07-after-denial");
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
