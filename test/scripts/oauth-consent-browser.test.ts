/**
 * The OAuth consent page as a person uses it, in Chromium against the real Worker: an app sends
 * the person to /oauth/authorize, they sign in with an approver key, see the app's name and where
 * its access goes, tick a toolset and allow; the browser lands on the app's loopback callback
 * with a code, which the app exchanges (PKCE) for a token that lists the granted tools. The
 * callback is a redirect to another origin after a form post, which the page's Content-Security-
 * Policy form-action must allow. Screenshots go to test-artifacts/oauth/.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, type ServedToolgate, serveToolgate } from "../../scripts/mcp/serve-toolgate.ts";
import { type Browser, chromiumAvailability, launchChromium } from "./support/chromium.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/oauth/", import.meta.url));

const availability = chromiumAvailability();
/** Polls with room for a loaded machine (expect.poll's default gives up after 1 s). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });
if (!availability.run) console.warn(`\n!!! SKIPPING the OAuth consent browser test: ${availability.message}\n`);

describe.skipIf(!availability.run)("the OAuth consent page in chromium", () => {
  let served: ServedToolgate;
  let browser: Browser;
  let page: Page;
  let callback: Server;
  let callbackUrl: string;
  let approverKey: string;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    served = await serveToolgate(ROOT, { entryPort: 0, directPort: 0 });
    approverKey = await createKey(served, { name: "browser-oauth-approver", role: "approver" });
    // The app's own callback, as a local MCP client listens for it.
    callback = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<!DOCTYPE html><title>Signed in</title><h1>Signed in to toolgate</h1><p>You can close this window.</p>");
    });
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await served?.dispose();
  }, 60_000);

  it("signs in, shows the app and its callback host, and sends the app a code that buys a token for the picked toolset", async () => {
    const origin = served.url.origin;
    const registered = await fetch(`${origin}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Browser Test App",
        redirect_uris: [callbackUrl],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: callbackUrl,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "browser-state",
      resource: `${origin}/mcp`,
    });

    await page.goto(`${origin}/oauth/authorize?${query}`);
    await eventually(() => page.title()).toBe("Sign in · toolgate approvals");
    await page.getByLabel("API key").fill(approverKey);
    await page.screenshot({ path: `${ARTIFACTS}01-sign-in.png`, fullPage: true });
    await Promise.all([page.waitForURL(`${origin}/oauth/authorize?${query}`), page.keyboard.press("Enter")]);

    await eventually(() => page.getByRole("heading", { level: 2 }).textContent()).toBe("Allow Browser Test App to use toolgate's tools?");
    expect(await page.locator("main").textContent()).toContain("127.0.0.1");
    expect(await page.locator("main").textContent()).toContain("an app on your own computer");
    await page.getByLabel("core").check();
    await page.screenshot({ path: `${ARTIFACTS}02-consent.png`, fullPage: true });
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callbackUrl)), page.getByRole("button", { name: "Allow" }).click()]);
    await page.screenshot({ path: `${ARTIFACTS}03-app-callback.png`, fullPage: true });

    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe("browser-state");
    const code = landed.searchParams.get("code") ?? "";
    const token = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: callbackUrl, client_id: clientId, code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const listed = await fetch(`${origin}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(listed.status).toBe(200);
    const names = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(names).toContain("echo");
    expect(names).not.toContain("web_search");
  }, 90_000);
});
