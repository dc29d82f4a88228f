/**
 * One sign-in across /admin, /approvals and /chat, in a real browser against the real Worker
 * (`wrangler dev`): for each role, sign in once on one page, walk to the others by the
 * navigation, be refused (403, a page saying why, the sign-in kept) where the role may not go,
 * then sign out once and find every page asking to sign in again. Screenshots go to
 * test-artifacts/one-sign-in/.
 */
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, chromiumAvailability, launchChromium } from "./support/chromium.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";

const ADMIN_TOKEN = `tg_browser_admin_${crypto.randomUUID().replaceAll("-", "")}`;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/one-sign-in/", import.meta.url));
const PAGES = ["/admin", "/approvals", "/chat"] as const;
type Role = "admin" | "approver" | "agent";

/** Per role: where it signs in, the pages it opens, and the navigation it is shown. */
const WALKS: { role: Role; signInAt: (typeof PAGES)[number]; opens: readonly string[]; nav: readonly string[] }[] = [
  {
    role: "admin",
    signInAt: "/admin",
    opens: ["/admin", "/approvals", "/chat"],
    nav: [
      "Overview",
      "Audit",
      "Tools",
      "Keys",
      "MCP servers",
      "OpenAPI sources",
      "Webhooks",
      "Schedules",
      "Connections",
      "Approvals",
      "Chat",
      "My connections",
    ],
  },
  { role: "approver", signInAt: "/approvals", opens: ["/approvals", "/chat"], nav: ["Approvals", "Chat", "My connections"] },
  { role: "agent", signInAt: "/chat", opens: ["/chat"], nav: ["Chat", "My connections"] },
];

const availability = chromiumAvailability();
if (!availability.run) console.warn(`\n!!! SKIPPING the one sign-in browser test: ${availability.message}\n`);

let worker: LocalWorker;
let browser: Browser;
let page: Page;
const keys = new Map<Role, string>();
const pageErrors: string[] = [];

const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 250 });
const navLabels = async () => (await page.getByRole("navigation", { name: "Sections" }).getByRole("link").allTextContents()).map((t) => t.trim());

/** Opens `path` and answers its status and title. */
async function open(path: string): Promise<{ status: number; title: string }> {
  const response = await page.goto(`${worker.origin}${path}`);
  return { status: response?.status() ?? 0, title: await page.title() };
}

describe.skipIf(!availability.run)("one sign-in for the admin console, the approvals page and the chat page, in chromium", () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    worker = await startLocalWorker({ port: 0, secrets: { ADMIN_TOKEN } });
    for (const { role } of WALKS) {
      const created = await fetch(`${worker.origin}/v1/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `walk-${role}`, role }),
      });
      expect(created.status).toBe(201);
      keys.set(role, ((await created.json()) as { key: string }).key);
    }
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    // CSP refusals and script errors; the 401 and 403 pages log a load failure, which is not one.
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) pageErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.dispose();
  }, 60_000);

  for (const walk of WALKS) {
    it(`signs in once as ${walk.role}, opens ${walk.opens.join(", ")} by the navigation, is refused the rest, and signs out everywhere`, async () => {
      const key = keys.get(walk.role) ?? "";
      // Nothing is signed in yet: every page asks (the previous walk signed out).
      for (const path of PAGES) expect(await open(path)).toMatchObject({ status: 401, title: expect.stringMatching(/^Sign in · /) });

      await open(walk.signInAt);
      await page.getByLabel("API key").fill(key);
      await Promise.all([page.waitForURL(`${worker.origin}${walk.signInAt}`), page.getByRole("button", { name: "Sign in" }).click()]);
      await eventually(() => page.locator("header").textContent()).toContain(`Signed in as walk-${walk.role} (${walk.role})`);
      expect(await navLabels()).toEqual(walk.nav);
      await page.screenshot({ path: `${ARTIFACTS}${walk.role}-01-signed-in.png`, fullPage: true });

      // Every link of the navigation opens its page, signed in, with no second sign-in.
      for (const label of walk.nav) {
        const href = (await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).getAttribute("href")) ?? "";
        await Promise.all([
          page.waitForURL(`${worker.origin}${href}`),
          page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).click(),
        ]);
        expect(await page.locator("header").textContent()).toContain(`Signed in as walk-${walk.role}`);
        expect(await page.title()).not.toMatch(/^(Sign in|Not open)/);
      }

      // A page the role may not see: 403, a page that names the role, the sign-in kept.
      for (const path of PAGES.filter((p) => !walk.opens.includes(p))) {
        expect(await open(path)).toMatchObject({ status: 403, title: expect.stringMatching(/^Not open to this key · /) });
        expect(await page.getByRole("alert").textContent()).toContain(`has the ${walk.role} role;`);
        expect(await navLabels()).toEqual(walk.nav);
        await page.screenshot({ path: `${ARTIFACTS}${walk.role}-02-refused${path.replaceAll("/", "-")}.png`, fullPage: true });
      }
      for (const path of walk.opens) expect((await open(path)).status).toBe(200);

      // Signing out on the last page it may not see (or its home) signs it out of every page.
      const refused = PAGES.filter((p) => !walk.opens.includes(p));
      await open(refused.at(-1) ?? walk.signInAt);
      await page.getByRole("button", { name: "Sign out" }).click();
      await eventually(() => page.title()).toMatch(/^Sign in · /);
      for (const path of PAGES) expect((await open(path)).status).toBe(401);
      expect(pageErrors).toEqual([]);
    }, 90_000);
  }
});
