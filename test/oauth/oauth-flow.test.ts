/**
 * OAuth 2.1 sign-in for the MCP doors, end to end in the real Worker: discovery from a 401,
 * registration, the consent page behind the approvals page's sign-in, the code exchange with
 * PKCE, tools over /mcp as the grant, refresh, and revocation through DELETE /v1/keys.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { oauthTokensOf } from "../../src/oauth/oauth-storage.ts";
import { MCP_BASE, mcpPost, rpc } from "../mcp/helpers.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";
import { authorizeQuery, consent, pkce, REDIRECT_URI, register, send, signedInBrowser, signedInClient, tokenRequest } from "./oauth-client.ts";

interface KeyRow {
  id: string;
  name: string;
  role: string;
  toolsets: string[] | null;
  kind: string;
  oauth_client_id: string | null;
  revoked_at: string | null;
}

const toolNames = (result: Record<string, unknown> | undefined) => ((result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);

describe("discovery", () => {
  it("answers /mcp without a token with a Bearer challenge naming its resource metadata", async () => {
    const response = await mcpPost("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token: null });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="toolgate", resource_metadata="${MCP_BASE}/.well-known/oauth-protected-resource/mcp"`);
    expect(((await response.json()) as { error: { data: { error_code: string } } }).error.data.error_code).toBe("UNAUTHENTICATED");
  });

  it("names the toolset door's own metadata on a 401 from /mcp/{toolset}, and invalid_token for a bad key", async () => {
    const response = await mcpPost("/mcp/core", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token: "tg_not_a_key" });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${MCP_BASE}/.well-known/oauth-protected-resource/mcp/core"`);
  });

  it("serves protected resource metadata (RFC 9728) for /mcp and each toolset's door, and 404 for an unknown toolset", async () => {
    const whole = await json(await send("/.well-known/oauth-protected-resource/mcp"));
    expect(whole).toMatchObject({ resource: `${MCP_BASE}/mcp`, authorization_servers: [MCP_BASE], bearer_methods_supported: ["header"] });
    const core = await json(await send("/.well-known/oauth-protected-resource/mcp/core"));
    expect(core).toMatchObject({ resource: `${MCP_BASE}/mcp/core`, authorization_servers: [MCP_BASE] });
    expect((await send("/.well-known/oauth-protected-resource/mcp/no-such-toolset")).status).toBe(404);
  });

  it("serves authorization server metadata (RFC 8414): code with PKCE S256 only, refresh, registration, revocation", async () => {
    const metadata = await json(await send("/.well-known/oauth-authorization-server"));
    expect(metadata).toMatchObject({
      issuer: MCP_BASE,
      authorization_endpoint: `${MCP_BASE}/oauth/authorize`,
      token_endpoint: `${MCP_BASE}/oauth/token`,
      registration_endpoint: `${MCP_BASE}/oauth/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(metadata.protected_resources).toEqual(expect.arrayContaining([`${MCP_BASE}/mcp`, `${MCP_BASE}/mcp/core`]));
  });
});

describe("signing in an MCP client", () => {
  it("shows a signed-in approver the app's name, where access goes, and the toolsets to pick", async () => {
    const clientId = await register({ client_name: "Calendar <b>Helper</b>" });
    const { challenge } = await pkce();
    const browser = await signedInBrowser("approver");
    const response = await browser.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    expect(response.status).toBe(200);
    expect(browser.lastPage).toContain("Calendar &lt;b&gt;Helper&lt;/b&gt;");
    expect(browser.lastPage).toContain("app.example");
    expect(browser.lastPage).toContain('value="core"');
    // The answer redirects to the app, so the page's form-action names the app's origin, and nothing frames it.
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self' https://app.example;");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  it("asks a visitor to sign in first, and comes back to the same request after", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const { PageClient } = await import("../approvals-page/page-client.ts");
    const browser = new PageClient(MCP_BASE);
    const query = authorizeQuery(clientId, challenge);
    const page = await browser.get(`/oauth/authorize?${query}`);
    expect(page.status).toBe(401);
    expect(browser.lastPage).toContain(`name="next" value="/oauth/authorize?${query.replaceAll("&", "&amp;")}"`);
  });

  it("issues tokens for the picked toolsets; the grant lists, calls and audits as an agent principal", async () => {
    const { clientId, tokens } = await signedInClient(["core"]);
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600 });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const listed = await rpc("/mcp", "tools/list", {}, { token: tokens.access_token });
    const names = toolNames(listed.result);
    expect(names).toContain("echo");
    expect(names).not.toContain("web_search");

    const callId = `oauth-call-${crypto.randomUUID()}`;
    const called = await rpc("/mcp", "tools/call", { name: "echo", arguments: { text: callId } }, { token: tokens.access_token });
    expect(called.result?.isError).toBeUndefined();

    const keys = await json<{ keys: KeyRow[] }>(await api("/v1/keys"));
    const grant = keys.keys.find((key) => key.oauth_client_id === clientId);
    expect(grant).toMatchObject({ kind: "oauth_grant", role: "agent", toolsets: ["core"], name: "Test App (OAuth)", revoked_at: null });
    const rows = await waitForAuditRows("key_id = ? AND tool = ?", [grant?.id ?? "", "echo"]);
    expect(rows[0]?.arguments).toContain(callId);
  });

  it("refreshes: the new access token works and the refresh token rotates", async () => {
    const { clientId, tokens } = await signedInClient(["core"]);
    const response = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(response.status).toBe(200);
    const refreshed = (await response.json()) as { access_token: string; refresh_token: string };
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await rpc("/mcp", "tools/list", {}, { token: refreshed.access_token })).result).toBeDefined();
  });

  it("ends every token of a grant at once when DELETE /v1/keys revokes it", async () => {
    const { clientId, tokens } = await signedInClient(["core"]);
    expect((await rpc("/mcp", "tools/list", {}, { token: tokens.access_token })).result).toBeDefined();
    const keys = await json<{ keys: KeyRow[] }>(await api("/v1/keys"));
    const grant = keys.keys.find((key) => key.oauth_client_id === clientId);
    expect((await env.OAUTH_KV.list({ prefix: oauthTokensOf(grant?.id ?? "") })).keys.length).toBeGreaterThan(0);
    expect((await api(`/v1/keys/${grant?.id}`, { method: "DELETE" })).status).toBe(204);

    const refused = await mcpPost("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token: tokens.access_token });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const refresh = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
    expect((await json<KeyRow>(await api(`/v1/keys/${grant?.id}`))).revoked_at).toEqual(expect.any(String));
    expect((await env.OAUTH_KV.list({ prefix: oauthTokensOf(grant?.id ?? "") })).keys).toEqual([]);
  });

  it("sends the app access_denied, with its state, when the person denies", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const location = await consent(await signedInBrowser(), authorizeQuery(clientId, challenge), "deny", []);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("state-123");
    expect(location.searchParams.get("iss")).toBe(MCP_BASE);
  });

  it("does not take an OAuth token on /v1", async () => {
    const { tokens } = await signedInClient(["core"]);
    const response = await api("/v1/tools", { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status).toBe(401);
  });
});
