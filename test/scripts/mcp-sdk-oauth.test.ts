/**
 * The official MCP SDK client signing in to toolgate with its own OAuth support
 * (`OAuthClientProvider`), against the real Worker in workerd on ephemeral loopback ports:
 * discovery from the 401, dynamic registration, the consent form (submitted here as a person's
 * browser would), the code exchange with PKCE, tools/list and tools/call, a refresh when the
 * access token stops working, and revocation, after which the client is sent to sign in again.
 */

import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consentAs } from "../../scripts/mcp/oauth-consent.ts";
import { createKey, type ServedToolgate, serveToolgate } from "../../scripts/mcp/serve-toolgate.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const REDIRECT_URL = "http://127.0.0.1:1/callback";

/** The SDK's storage and browser hand-off, kept in memory; the authorization URL is handed to the test. */
class TestProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK Test Client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  forgetAuthorizationUrl() {
    this.authorizationUrl = undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // What a real client does when the server refuses its refresh token: drop the tokens and sign in again.
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

describe("the MCP SDK client's own OAuth against /mcp", () => {
  let served: ServedToolgate;
  let approverKey: string;
  const provider = new TestProvider();
  const mcpUrl = () => new URL("/mcp", served.url);

  beforeAll(async () => {
    served = await serveToolgate(ROOT, { entryPort: 0, directPort: 0 });
    approverKey = await createKey(served, { name: "sdk-oauth-approver", role: "approver" });
  }, 60_000);

  afterAll(async () => {
    await served?.dispose();
  });

  /** Consents at the authorization URL as the approver; returns the code the redirect carries. */
  async function consentTo(authorizationUrl: URL, toolsets: string[]): Promise<string> {
    const location = await consentAs(approverKey, authorizationUrl, toolsets);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URL);
    return location.searchParams.get("code") ?? "";
  }

  async function connected(): Promise<Client> {
    const client = new Client({ name: "toolgate-oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    return client;
  }

  it("discovers, registers, is sent to consent, and finishes with tokens", async () => {
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    const client = new Client({ name: "toolgate-oauth-test", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const url = provider.authorizationUrl;
    expect(url?.pathname).toBe("/oauth/authorize");
    expect(url?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url?.searchParams.get("resource")).toBe(mcpUrl().href);

    await transport.finishAuth(await consentTo(url ?? new URL("about:blank"), ["core"]));
    expect(provider.saved?.access_token).toEqual(expect.any(String));
    expect(provider.saved?.refresh_token).toEqual(expect.any(String));
  }, 60_000);

  it("lists and calls the granted toolset's tools as the grant", async () => {
    const client = await connected();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(tools.map((tool) => tool.name)).not.toContain("web_search");
    const result = await client.callTool({ name: "echo", arguments: { text: "signed in" } });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ text: "signed in" }) }]);
    await client.close();
  }, 30_000);

  it("refreshes by itself when its access token is refused", async () => {
    const before = provider.saved;
    // An access token the server never issued: the next request gets 401 and the SDK refreshes.
    provider.saved = { ...(before as OAuthTokens), access_token: "unknown:access:token" };
    const client = await connected();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(provider.saved.access_token).not.toBe("unknown:access:token");
    expect(provider.saved.refresh_token).not.toBe(before?.refresh_token);
    await client.close();
  }, 30_000);

  it("is sent to sign in again once an admin revokes the grant", async () => {
    const keys = await fetch(new URL("/v1/keys", served.url), { headers: { authorization: `Bearer ${served.adminToken}` } });
    const grant = ((await keys.json()) as { keys: { id: string; kind: string; name: string }[] }).keys.find((key) => key.kind === "oauth_grant");
    expect(grant?.name).toBe("SDK Test Client (OAuth)");
    const revoked = await fetch(new URL(`/v1/keys/${grant?.id}`, served.url), { method: "DELETE", headers: { authorization: `Bearer ${served.adminToken}` } });
    expect(revoked.status).toBe(204);

    const token = provider.saved?.access_token ?? "";
    const direct = await fetch(mcpUrl(), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(direct.status).toBe(401);
    expect(direct.headers.get("www-authenticate")).toContain('error="invalid_token"');

    provider.forgetAuthorizationUrl();
    await expect(connected()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.pathname).toBe("/oauth/authorize");
  }, 30_000);
});
