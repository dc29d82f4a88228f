/**
 * OAuth 2.1 for the MCP doors, mounted beside them: RFC 8414 authorization server metadata,
 * dynamic client registration (RFC 7591), the token endpoint (authorization code with PKCE S256,
 * refresh, RFC 7009 revocation), all answered by the provider; RFC 9728 protected resource
 * metadata for `/mcp` and each `/mcp/{toolset}`; and the consent page (consent-routes.tsx).
 * /v1 is untouched: it takes API keys only.
 */
import { type Context, Hono } from "hono";
import { requestOrigin } from "../http/request-origin.ts";
import type { AppEnv } from "../http/types.ts";
import { everyResource, fullAuthorizationServer } from "./authorization-server.ts";
import { consentRoutes } from "./consent-routes.tsx";
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  mcpResourceAt,
  PROTECTED_RESOURCE_METADATA_PREFIX,
  REGISTER_PATH,
  servesOAuth,
  TOKEN_PATH,
} from "./oauth-paths.ts";

const NOT_FOUND = { error: "not_found", error_description: "No MCP door has this path; /mcp and /mcp/{toolset} do (GET /v1/toolsets lists the toolsets)." };

/** The OAuth routes, for `app.route("/", oauthRoutes())`. */
export function oauthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Every method: the provider answers CORS preflights and refuses the wrong method itself.
  app.all(AUTHORIZATION_SERVER_METADATA_PATH, provider);
  app.all(TOKEN_PATH, provider);
  app.all(REGISTER_PATH, provider);

  app.get(`${PROTECTED_RESOURCE_METADATA_PREFIX}/mcp`, resourceMetadata);
  app.get(`${PROTECTED_RESOURCE_METADATA_PREFIX}/mcp/:toolset`, resourceMetadata);

  app.route("/", consentRoutes());
  return app;
}

const NO_OAUTH = { error: "not_found", error_description: "OAuth is served over https only (or plain http on a loopback host, for local development)." };

async function provider(c: Context<AppEnv>): Promise<Response> {
  const origin = requestOrigin(c.req.url);
  if (!servesOAuth(origin)) return c.json(NO_OAUTH, 404);
  const server = await fullAuthorizationServer(origin, c.env);
  // Hono types the context as its own subset of the runtime's ExecutionContext; the object is the runtime's.
  return server.fetch(c.req.raw, c.env, c.executionCtx as ExecutionContext);
}

async function resourceMetadata(c: Context<AppEnv>): Promise<Response> {
  const origin = requestOrigin(c.req.url);
  const door = mcpResourceAt(origin, c.req.path.slice(PROTECTED_RESOURCE_METADATA_PREFIX.length));
  if (door === undefined || !(await everyResource(origin, c.env.KV)).includes(door.resource)) return c.json(NOT_FOUND, 404);
  return c.json(
    {
      resource: door.resource,
      authorization_servers: [origin],
      bearer_methods_supported: ["header"],
      resource_name: door.toolset === undefined ? "toolgate" : `toolgate: toolset ${door.toolset}`,
    },
    200,
    { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" },
  );
}
