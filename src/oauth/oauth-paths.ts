/**
 * Where OAuth 2.1 for /mcp lives on the Worker's origin, and how an MCP door's URL names its
 * protected resource. Every MCP door is its own resource (RFC 8707): `/mcp`, and `/mcp/{toolset}`
 * for each toolset, so a token issued for one toolset's door is refused at every other door.
 */

/** The consent page: ours (src/oauth/consent-routes.tsx), advertised in the server metadata. */
export const AUTHORIZE_PATH = "/oauth/authorize";
/** Token, refresh and revocation (RFC 7009): the provider's. */
export const TOKEN_PATH = "/oauth/token";
/** Dynamic client registration (RFC 7591): the provider's. */
export const REGISTER_PATH = "/oauth/register";
/** RFC 8414 authorization server metadata, for the issuer that is the Worker's origin. */
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";
/** RFC 9728 section 3.1: a resource's metadata is this prefix followed by the resource's path. */
export const PROTECTED_RESOURCE_METADATA_PREFIX = "/.well-known/oauth-protected-resource";

const MCP_PATH = "/mcp";

/**
 * Toolset names that can name a door of their own. Custom toolset names are held to this already
 * (POST /v1/toolsets); `all` and `*`, which name every tool, get no door: a grant lists toolsets.
 */
const TOOLSET_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether a toolset name can be part of a resource URL. */
export const isResourceToolset = (name: string): boolean => TOOLSET_SEGMENT.test(name) && name !== "all";

const LOOPBACK_ORIGIN = /^http:\/\/(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(?::\d+)?$/;

/**
 * Whether OAuth is offered on this origin. OAuth 2.1 (and the provider) take an issuer and
 * resources over https only, or plain http on a loopback host for local development; a deployed
 * Worker is always https. Elsewhere (wrangler dev on a LAN address) the doors take API keys only.
 */
export const servesOAuth = (origin: string): boolean => origin.startsWith("https://") || LOOPBACK_ORIGIN.test(origin);

/** The resource of the door at `path` (`/mcp` or `/mcp/{toolset}`), or undefined for any other path or an origin without OAuth. */
export function mcpResourceAt(origin: string, path: string): { resource: string; toolset: string | undefined } | undefined {
  if (!servesOAuth(origin)) return undefined;
  if (path === MCP_PATH) return { resource: `${origin}${MCP_PATH}`, toolset: undefined };
  if (!path.startsWith(`${MCP_PATH}/`)) return undefined;
  const toolset = path.slice(MCP_PATH.length + 1);
  return isResourceToolset(toolset) ? { resource: `${origin}${path}`, toolset } : undefined;
}

/** The resource of `/mcp` or of one toolset's door. */
export const mcpResource = (origin: string, toolset?: string): string => (toolset === undefined ? `${origin}${MCP_PATH}` : `${origin}${MCP_PATH}/${toolset}`);

/** The toolset a resource's door serves, or undefined for `/mcp` itself. */
export function toolsetOfResource(origin: string, resource: string): string | undefined {
  return mcpResourceAt(origin, resource.slice(origin.length))?.toolset;
}

/** Where a resource's RFC 9728 metadata is served: the prefix, then the resource's path. */
export function resourceMetadataUrl(origin: string, resource: string): string {
  return `${origin}${PROTECTED_RESOURCE_METADATA_PREFIX}${resource.slice(origin.length)}`;
}
