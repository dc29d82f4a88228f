/**
 * The OAuth 2.1 authorization server for /mcp: @cloudflare/workers-oauth-provider's
 * `OAuthAuthorizationServer`, whose issuer is the Worker's own origin and whose resources are the
 * MCP doors (oauth-paths.ts). It keeps clients, grants and tokens in the `OAUTH_KV` binding,
 * hashed (docs/storage.md); it serves discovery, registration, token and revocation, and
 * validates access tokens; the consent page is ours (consent-routes.tsx).
 *
 * The library fixes an instance's issuer and resources at construction, and both depend on the
 * request (the origin; custom toolsets made at run time), so instances are built on demand and
 * kept per issuer and resource list. Building one only checks and copies options: no I/O.
 */
import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { listToolsetNames } from "../toolsets/custom-toolsets.ts";
import { AUTHORIZE_PATH, isResourceToolset, mcpResource, REGISTER_PATH, TOKEN_PATH } from "./oauth-paths.ts";

/** An access token's life: an hour, after which the client refreshes. */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** A grant's life from its first code exchange, however often it is refreshed: 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Instances kept; a new origin or toolset list past this drops the oldest (Host headers are the caller's to choose). */
const MAX_SERVERS = 32;
const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The authorization server for `origin`, declaring `resources` (at least one). Validation needs
 * only the one resource being accessed; discovery, consent and the token endpoint need every
 * door (`everyResource`).
 */
export function authorizationServer(origin: string, resources: readonly string[]): OAuthAuthorizationServer<Env> {
  const id = `${origin} ${resources.join(" ")}`;
  const found = servers.get(id);
  if (found !== undefined) return found;
  const server = new OAuthAuthorizationServer<Env>({
    issuer: origin,
    resources,
    // A client that names no resource (older than RFC 8707 in MCP) gets the whole /mcp door.
    ...(resources.includes(mcpResource(origin)) ? { defaultResource: mcpResource(origin) } : {}),
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    // Refused requests are answered with their OAuth error; nothing to log for a client's mistake.
    onError: () => undefined,
  });
  if (servers.size >= MAX_SERVERS) {
    const oldest = servers.keys().next();
    if (oldest.done !== true) servers.delete(oldest.value);
  }
  servers.set(id, server);
  return server;
}

/** Every MCP door of this deployment: `/mcp`, and one per toolset (built-in and custom). */
export async function everyResource(origin: string, kv: KVNamespace): Promise<string[]> {
  const names = await listToolsetNames(kv);
  return [mcpResource(origin), ...names.filter(isResourceToolset).map((name) => mcpResource(origin, name))];
}

/** The authorization server with every door declared: what discovery, consent and the token endpoint use. */
export async function fullAuthorizationServer(origin: string, env: Env): Promise<OAuthAuthorizationServer<Env>> {
  return authorizationServer(origin, await everyResource(origin, env.KV));
}
