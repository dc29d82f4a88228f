/**
 * The approvals page as a person uses it, in a real browser against the real Worker: sign in
 * with an approver key, see an agent's call appear, approve it from the keyboard while the agent
 * long-polls, and see the agent get the tool's result; deny another with a typed reason and see
 * the agent read it. Screenshots go to test-artifacts/approvals-page/.
 *
 * Port 9260 is this test's (the approvals page's range is 9260-9269).
 */
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openaiCall } from "../support/tool-calls.ts";
import { type Browser, chromiumAvailability, launchChromium } from "./support/chromium.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";

const PORT = 9260;
const ADMIN_TOKEN = `tg_browser_admin_${crypto.randomUUID().replaceAll("-", "")}`;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/approvals-page/", import.meta.url));

const availability = chromiumAvailability();
if (!availability.run) console.warn(`\n!!! SKIPPING the approvals page browser test: ${availability.message}\n`);

let worker: LocalWorker;
let browser: Browser;
let page: Page;
let agentKey: string;
let approverKey: string;
const sessionId = `browser-${crypto.randomUUID()}`;

async function api<T>(path: string, key: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await fetch(`${worker.origin}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as T };
}

async function createKey(name: string, role: string): Promise<string> {
  const { status, json } = await api<{ key: string }>("/v1/keys", ADMIN_TOKEN, { name, role });
  expect(status).toBe(201);
  return json.key;
}

interface CallResult {
  id: string;
  status: string;
  error_code: string | null;
  approval?: { id: string; expires_at: number; url: string };
}

/** The agent asks for one echo call in the shared session; echo needs approval in this Worker. */
async function agentCalls(callId: string, text: string): Promise<CallResult> {
  const body = { session_id: sessionId, tool_calls: [openaiCall(callId, "echo", { text })] };
  const { status, json } = await api<{ results: CallResult[] }>("/v1/tool-calls", agentKey, body);
  expect(status).toBe(200);
  const [result] = json.results;
  expect(result).toMatchObject({ id: callId, status: "pending_approval", error_code: "APPROVAL_REQUIRED" });
  if (result?.approval === undefined) throw new Error(`no approval in ${JSON.stringify(result)}`);
  return result;
}

/** GET /v1/approvals/{id} as the agent reads it (the fields this test looks at). */
interface ApprovalOutcome {
  status: string;
  reason?: string;
  result?: { status: string; error_code: string | null; content: string };
  message?: { role: string; tool_call_id: string; content: string };
}

/** The agent's long-poll, repeated until the approval has settled; fails with its state when 60 s pass first. */
function longPoll(approvalId: string): Promise<ApprovalOutcome> {
  return vi.waitFor(
    async () => {
      const { status, json } = await api<ApprovalOutcome>(`/v1/approvals/${approvalId}?session_id=${sessionId}&wait=30`, agentKey);
      expect(status).toBe(200);
      if (json.result === undefined) throw new Error(`approval ${approvalId} is still ${json.status}`);
      return json;
    },
    { timeout: 60_000, interval: 50 },
  );
}

/** Polls with room for a loaded machine (expect.poll's default gives up after 1 s). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

/** The card of one approval on the page. */
const card = (approvalId: string) => page.locator(`article[data-approval-id="${approvalId}"]`);

describe.skipIf(!availability.run)("the approvals page in chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    worker = await startLocalWorker({ port: PORT, secrets: { ADMIN_TOKEN }, vars: { APPROVAL_REQUIRED_FOR: "echo" } });
    [agentKey, approverKey] = await Promise.all([createKey("browser-agent", "agent"), createKey("browser-approver", "approver")]);
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
  }, 60_000);

  it("signs in with an approver key, typed and submitted from the keyboard", async () => {
    await page.goto(`${worker.origin}/approvals`);
    await eventually(() => page.title()).toBe("Sign in · toolgate approvals");
    await page.getByLabel("API key").focus();
    await page.keyboard.type(approverKey);
    await shot("01-sign-in");
    await Promise.all([page.waitForURL(`${worker.origin}/approvals`), page.keyboard.press("Enter")]);
    await eventually(() => page.getByRole("heading", { level: 2, name: /Pending/ }).textContent()).toContain("Pending (0)");
    await eventually(() => page.locator("header").textContent()).toContain("Signed in as browser-approver (approver)");
  }, 60_000);

  it("shows the agent's call after a reload; approving it hands the agent the tool's result", async () => {
    const text = "hello from the browser test";
    const pending = await agentCalls("call_approve", text);
    const outcome = longPoll(pending.approval?.id ?? "");

    await page.reload();
    const item = card(pending.approval?.id ?? "");
    await eventually(() => item.getByRole("heading", { level: 3 }).textContent()).toBe("echo");
    expect(await item.locator("pre").textContent()).toContain(`"text": "${text}"`);
    expect(await item.textContent()).toContain(sessionId);
    expect(await item.textContent()).toContain("browser-agent");
    await shot("02-pending");

    // Keyboard only: focus the button and press Enter, as a person tabbing through would.
    await item.getByRole("button", { name: "Approve once" }).focus();
    await Promise.all([page.waitForURL(/\/approvals\?decided=/), page.keyboard.press("Enter")]);
    await eventually(() => page.getByRole("status").textContent()).toContain("approved once");
    await shot("03-approved");

    const result = await outcome;
    expect(result).toMatchObject({ status: "approved", result: { status: "ok", error_code: null }, message: { role: "tool", tool_call_id: "call_approve" } });
    expect(JSON.parse(result.message?.content ?? "{}")).toEqual({ text });
  }, 90_000);

  it("denies a call from the agent's approval link with a typed reason, which the agent reads as APPROVAL_DENIED", async () => {
    const reason = "Not during the release freeze; ask again tomorrow.";
    const pending = await agentCalls("call_deny", "please deny me");
    const outcome = longPoll(pending.approval?.id ?? "");

    // This time through the link the agent was given, as a person handed it would.
    expect(pending.approval?.url).toBe(`${worker.origin}/approvals/${pending.approval?.id}`);
    await page.goto(pending.approval?.url ?? "");
    const item = card(pending.approval?.id ?? "");
    await item.getByLabel("Reason for denying").fill(reason);
    await Promise.all([page.waitForURL(/\/approvals\?decided=/), item.getByRole("button", { name: "Deny" }).click()]);
    await eventually(() => page.getByRole("status").textContent()).toContain(`denied. Reason: ${reason}`);
    await shot("04-denied");

    const result = await outcome;
    expect(result).toMatchObject({
      status: "denied",
      reason,
      result: { status: "error", error_code: "APPROVAL_DENIED" },
      message: { tool_call_id: "call_deny" },
    });
    expect(result.message?.content).toContain(reason);
  }, 90_000);

  it("is readable on a 375 px wide phone: nothing wider than the screen", async () => {
    const pending = await agentCalls("call_phone", "a long argument ".repeat(20));
    await page.setViewportSize({ width: 375, height: 812 });
    await page.reload();
    expect(await card(pending.approval?.id ?? "").isVisible()).toBe(true);
    // A string, evaluated in the page: this Node project has no DOM types.
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await shot("05-phone-375px");
  }, 60_000);

  it("shows the session's audit trail once the audit log has the calls", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${worker.origin}/approvals/sessions/${sessionId}`);
    // Audit records arrive through a queue, a moment after each call.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator("tbody tr").count();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBeGreaterThanOrEqual(3);
    expect(await page.locator("tbody").textContent()).toContain("echo");
    await shot("06-session-trail");
  }, 60_000);
});
