/**
 * The MCP conformance suite's client under test (`conformance client --command "node
 * scripts/mcp/conformance-client.ts"`): the suite starts a scenario's server and runs this with
 * its URL as the last argument and the scenario in MCP_CONFORMANCE_SCENARIO.
 *
 * It drives toolgate's own federation client, the modules the Worker bundles
 * (src/mcp/client/mcp-client.ts and the OAuth flow in src/mcp/client/oauth/), in Node: they use
 * only fetch, streams and Web Crypto, which both runtimes provide. What is Worker-only (the KV
 * token store, the sign-in routes, the federation state) is replaced by what this file holds in
 * memory, and the person who signs in is played by following the authorization redirect, as the
 * suite's own example client does. Their workerd side is tested in
 * test/mcp/federation/oauth-sign-in.test.ts.
 */
import { McpClientError } from "../../src/mcp/client/json-rpc.ts";
import { type McpAuth, McpClient } from "../../src/mcp/client/mcp-client.ts";
import { createOAuthFetch } from "../../src/mcp/client/oauth/oauth-fetch.ts";
import { grantExpired, type OAuthGrant } from "../../src/mcp/client/oauth/oauth-grant.ts";
import { beginSignIn, finishSignIn, refreshGrant } from "../../src/mcp/client/oauth/sign-in-flow.ts";

/** The scenarios' servers listen on localhost ports the SSRF guard would otherwise refuse. */
const ALLOW = ["localhost", "localhost:*", "127.0.0.1:*"];
/** A client ID metadata document URL the suite's authorization servers accept (basic-cimd). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URL = "http://localhost:3000/callback";

/** Signs in the way toolgate's sign-in routes do, with the browser step played by a redirect-less fetch. */
function memoryAuth(serverUrl: string, preRegistered?: { client_id: string; client_secret?: string }): McpAuth {
  const fetch = createOAuthFetch(ALLOW);
  let grant: OAuthGrant | undefined;
  return {
    async authorization() {
      if (grant !== undefined && grantExpired(grant, Date.now())) grant = await refreshGrant(grant, fetch, Date.now());
      return grant === undefined ? undefined : `Bearer ${grant.accessToken}`;
    },
    async renew(error: McpClientError) {
      const state = crypto.randomUUID();
      const { authorizationUrl, pending } = await beginSignIn({
        serverUrl,
        ...(error.challenge === undefined ? {} : { challenge: error.challenge }),
        redirectUrl: REDIRECT_URL,
        state,
        clientName: "toolgate conformance harness",
        ...(preRegistered === undefined ? {} : { preRegistered }),
        clientMetadataUrl: CLIENT_METADATA_URL,
        ...(grant === undefined ? {} : { previousClient: { authorizationServerUrl: grant.authorizationServerUrl, client: grant.client } }),
        fetch,
      });
      const approved = await globalThis.fetch(authorizationUrl, { redirect: "manual" });
      const callback = new URL(approved.headers.get("location") ?? "", authorizationUrl);
      if (callback.searchParams.get("state") !== state) throw new Error("the authorization server's redirect carries another state");
      const code = callback.searchParams.get("code");
      if (code === null) throw new Error(`the authorization server answered ${callback.searchParams.get("error") ?? "without a code"}`);
      grant = await finishSignIn(pending, code, fetch, Date.now());
      return true;
    },
  };
}

async function main(): Promise<void> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const serverUrl = process.argv.at(-1) ?? "";
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as { client_id?: string; client_secret?: string };
  const preRegistered =
    context.client_id === undefined
      ? undefined
      : { client_id: context.client_id, ...(context.client_secret === undefined ? {} : { client_secret: context.client_secret }) };
  const client = new McpClient({
    name: "conformance",
    url: serverUrl,
    headers: {},
    timeoutMs: 20_000,
    allow: ALLOW,
    ...(scenario.startsWith("auth/") ? { auth: memoryAuth(serverUrl, preRegistered) } : {}),
  });
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  if (scenario === "tools_call") await client.callTool("add_numbers", { a: 5, b: 3 });
  else if (scenario === "sse-retry") await client.callTool("test_reconnection", {});
  else if (scenario.startsWith("auth/") && names.includes("test-tool")) await client.callTool("test-tool", {});
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    process.exit(1);
  },
);
