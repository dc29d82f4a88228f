/**
 * The OpenAPI document and the /docs page of the real Worker, served by wrangler as `npm start`
 * serves it. The document is validated against the OpenAPI 3.1 schema with
 * @seriousme/openapi-schema-validator, which runs here in Node because it reads its
 * meta-schemas from its package's files (workerd's file system does not have them). /docs is
 * opened in Debian's chromium with every request to another origin refused, as on a machine
 * without internet access; screenshots go to test-artifacts/docs/.
 */
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailability, launchChromium } from "./support/chromium.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";

const ADMIN_TOKEN = `tg_docs_admin_${crypto.randomUUID().replaceAll("-", "")}`;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/docs/", import.meta.url));

const availability = chromiumAvailability();
if (!availability.run) console.warn(`\n!!! SKIPPING the /docs browser test: ${availability.message}\n`);

let worker: LocalWorker;

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${worker.origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

async function documentFor(key: string | undefined, query = ""): Promise<Record<string, unknown>> {
  const res = await fetch(`${worker.origin}/openapi.json${query}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function expectValid(doc: Record<string, unknown>): Promise<void> {
  const result = await new Validator().validate(doc);
  expect(result.errors, JSON.stringify(result.errors, null, 2)?.slice(0, 2_000)).toBeUndefined();
  expect(result.valid).toBe(true);
}

beforeAll(async () => {
  worker = await startLocalWorker({ port: 0, secrets: { ADMIN_TOKEN } });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
}, 60_000);

describe("/openapi.json is valid OpenAPI 3.1", () => {
  it("without a key", async () => {
    await expectValid(await documentFor(undefined));
  }, 60_000);

  it("with the admin token: every tool's operation", async () => {
    const doc = await documentFor(ADMIN_TOKEN);
    expect(Object.keys(doc.paths as object)).toContain("/v1/tools/echo/call");
    await expectValid(doc);
  }, 60_000);

  it("with a key whose tool schemas have $defs and $refs, and with only=tools", async () => {
    const { key } = await post<{ key: string }>("/v1/keys", { name: "docs-conformance", role: "agent", toolsets: ["core", "conformance"] });
    const doc = await documentFor(key);
    expect(Object.keys((doc.components as { schemas: object }).schemas)).toContain("tool.json_schema_2020_12_tool");
    await expectValid(doc);
    await expectValid(await documentFor(key, "?only=tools"));
  }, 60_000);

  it("and the validator is not a rubber stamp: a broken document fails it", async () => {
    const doc = await documentFor(ADMIN_TOKEN);
    const broken = { ...doc, paths: { ...(doc.paths as object), "/v1/tools/echo/call": { post: { operationId: "echo", requestBody: { required: true } } } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  }, 60_000);
});

describe.skipIf(!availability.run)("/docs in chromium with no network beyond our origin", () => {
  it("shows the reference with the operations listed, loading nothing from anywhere else", async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const elsewhere: string[] = [];
      const refused: string[] = [];
      // Offline but for us: anything for another origin is aborted and remembered.
      await page.route("**/*", async (route) => {
        const url = route.request().url();
        if (url.startsWith(`${worker.origin}/`) || url.startsWith("data:")) return route.continue();
        elsewhere.push(url);
        return route.abort("internetdisconnected");
      });
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      const response = await page.goto(`${worker.origin}/docs`);
      expect(response?.headers()["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'self';/);
      // The viewer's file itself came from us, pinned by its hash.
      expect(await page.locator("script[integrity]").getAttribute("src")).toMatch(/^\/docs\/viewer\//);
      await expect.poll(() => page.getByText("Run a batch of tool calls").first().isVisible(), { timeout: 30_000, interval: 250 }).toBe(true);
      await expect.poll(() => page.getByText("Call one tool").first().isVisible(), { timeout: 10_000, interval: 250 }).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}01-docs-offline.png` });
      expect(elsewhere).toEqual([]);
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
