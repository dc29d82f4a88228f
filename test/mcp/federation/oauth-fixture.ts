import { env } from "cloudflare:workers";
import { OAUTH_MCP_CONTROL_HOST, TEST_MCP_TOKEN_KEY } from "../../support/test-env.ts";

/**
 * A fresh OAuth-protected MCP server on loopback (test/support/oauth-mcp-server.ts): its port, an
 * env that may reach it and holds MCP_TOKEN_KEY, and its control endpoint (read, or POST to change
 * how it behaves); `C` is the shape a test reads back from it.
 */
export interface OAuthFixture<C> {
  port: number;
  env: Env;
  control: (body?: Record<string, unknown>) => Promise<C>;
}

export async function startOAuthFixture<C>(): Promise<OAuthFixture<C>> {
  const { port } = (await (await fetch(`http://${OAUTH_MCP_CONTROL_HOST}/start`)).json()) as { port: number };
  return {
    port,
    env: { ...env, OUTBOUND_ALLOW: `127.0.0.1:${port}`, MCP_TOKEN_KEY: TEST_MCP_TOKEN_KEY } as Env,
    control: async (body) => {
      const res = await fetch(
        `http://127.0.0.1:${port}/control`,
        body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
      return (await res.json()) as C;
    },
  };
}
