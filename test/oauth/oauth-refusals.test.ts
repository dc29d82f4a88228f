/**
 * Every way an OAuth request can be wrong gets the OAuth error its spec names, never a 500: at
 * the authorization endpoint (unknown client, unregistered redirect URI, no or plain PKCE), the
 * token endpoint (wrong or missing verifier, replayed code, unknown client), the consent form,
 * and the MCP doors (expired, revoked, foreign-door and malformed tokens).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { csrfOf } from "../approvals-page/page-client.ts";
import { mcpPost } from "../mcp/helpers.ts";
import { authorizeQuery, consent, handleOf, pkce, REDIRECT_URI, register, send, signedInBrowser, signedInClient, tokenRequest } from "./oauth-client.ts";

const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };

/** A fresh client's code, consented by an admin, and the verifier that goes with it. */
async function codeFor(): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const location = await consent(await signedInBrowser("admin"), authorizeQuery(clientId, challenge), "approve", ["core"]);
  return { clientId, code: location.searchParams.get("code") ?? "", verifier };
}

describe("the authorization endpoint", () => {
  it("shows an error page, never a redirect, for an unknown client", async () => {
    const { challenge } = await pkce();
    const response = await send(`/oauth/authorize?${authorizeQuery("no-such-client", challenge)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("Start the sign-in again from the app");
  });

  it("shows an error page, never a redirect, for a redirect URI the client did not register", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const response = await send(`/oauth/authorize?${authorizeQuery(clientId, challenge, { redirect_uri: "https://attacker.example/steal" })}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it.each([
    ["no code_challenge", { code_challenge: undefined, code_challenge_method: undefined }],
    ["the plain method", { code_challenge_method: "plain" }],
  ])("redirects to the client with invalid_request for %s (PKCE S256 only)", async (_name, overrides) => {
    const clientId = await register();
    const { challenge } = await pkce();
    const response = await send(`/oauth/authorize?${authorizeQuery(clientId, challenge, overrides)}`);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("state")).toBe("state-123");
  });

  it("redirects with invalid_target for a resource that is not one of its MCP doors", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const response = await send(`/oauth/authorize?${authorizeQuery(clientId, challenge, { resource: "https://elsewhere.example/mcp" })}`);
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_target");
  });
});

describe("the consent form", () => {
  it("is refused without the sign-in's CSRF token", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const browser = await signedInBrowser();
    await browser.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const response = await browser.post("/oauth/authorize", { handle: handleOf(browser.lastPage), decision: "approve", toolset: "core" });
    expect(response.status).toBe(403);
  });

  it("cannot be answered twice: the second answer gets an error page", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const browser = await signedInBrowser();
    await browser.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const form = { csrf: csrfOf(browser.lastPage), handle: handleOf(browser.lastPage), decision: "approve", toolset: "core" };
    expect((await browser.post("/oauth/authorize", form)).status).toBe(302);
    const again = await browser.post("/oauth/authorize", form);
    expect(again.status).toBe(400);
    expect(browser.lastPage).toContain("expired, was already used");
  });

  it("will not grant a toolset the signed-in key may not use", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const browser = await signedInBrowser("approver", ["core"]);
    await browser.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    expect(browser.lastPage).not.toContain('value="web"');
    const response = await browser.post("/oauth/authorize", {
      csrf: csrfOf(browser.lastPage),
      handle: handleOf(browser.lastPage),
      decision: "approve",
      toolset: "web",
    });
    expect(response.status).toBe(400);
    expect(browser.lastPage).toContain("may not grant web");
  });

  it("needs at least one toolset to allow", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const browser = await signedInBrowser();
    await browser.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const response = await browser.post("/oauth/authorize", { csrf: csrfOf(browser.lastPage), handle: handleOf(browser.lastPage), decision: "approve" });
    expect(response.status).toBe(400);
    expect(browser.lastPage).toContain("at least one toolset");
  });
});

describe("the token endpoint", () => {
  it("answers invalid_grant for a wrong PKCE verifier", async () => {
    const { clientId, code } = await codeFor();
    const response = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: "x".repeat(64),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("answers an OAuth error for a missing PKCE verifier", async () => {
    const { clientId, code } = await codeFor();
    const response = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId });
    expect(response.status).toBe(400);
    expect((await response.json()) as { error: string }).toMatchObject({ error: expect.stringMatching(/^invalid_(grant|request)$/) });
  });

  it("answers invalid_grant for a code used a second time", async () => {
    const { clientId, code, verifier } = await codeFor();
    const fields = { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier };
    expect((await tokenRequest(fields)).status).toBe(200);
    const replay = await tokenRequest(fields);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("answers invalid_client for a client it does not know", async () => {
    const response = await tokenRequest({
      grant_type: "authorization_code",
      code: "a:b:c",
      redirect_uri: REDIRECT_URI,
      client_id: "no-such-client",
      code_verifier: "x".repeat(64),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "invalid_client" });
  });
});

describe("tokens at the MCP doors", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses a token issued for one toolset's door at another door and at /mcp", async () => {
    const { tokens } = await signedInClient(["core"], "http://localhost/mcp/core");
    expect((await mcpPost("/mcp/core", listTools, { token: tokens.access_token })).status).toBe(200);
    for (const path of ["/mcp/web", "/mcp"]) {
      const response = await mcpPost(path, listTools, { token: tokens.access_token });
      expect(response.status, path).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  it("refuses an access token once it has expired, and takes the refreshed one", async () => {
    const { clientId, tokens } = await signedInClient(["core"]);
    expect((await mcpPost("/mcp", listTools, { token: tokens.access_token })).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (tokens.expires_in + 60) * 1000);
    const expired = await mcpPost("/mcp", listTools, { token: tokens.access_token });
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const refreshed = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const { access_token } = (await refreshed.json()) as { access_token: string };
    expect((await mcpPost("/mcp", listTools, { token: access_token })).status).toBe(200);
  });

  it("refuses a made-up token of the provider's shape with 401, not a 500", async () => {
    const response = await mcpPost("/mcp", listTools, { token: "user:grant:secret" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(response.headers.get("www-authenticate")).toContain('resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"');
  });
});

describe("an origin without OAuth", () => {
  it("offers none over plain http on a non-loopback host: a 404 that says why, and an error page at the consent endpoint, never a 500", async () => {
    const { exports } = await import("cloudflare:workers");
    const metadata = await exports.default.fetch("http://toolgate.test/.well-known/oauth-authorization-server");
    expect(metadata.status).toBe(404);
    expect(await metadata.json()).toMatchObject({ error: "not_found", error_description: expect.stringContaining("https") });
    const page = await exports.default.fetch("http://toolgate.test/oauth/authorize?client_id=x");
    expect(page.status).toBe(400);
  });
});
