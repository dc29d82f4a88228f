/**
 * The admin API for remote MCP servers: configure them (`GET/POST /v1/mcp-servers`,
 * `GET/PUT/DELETE /v1/mcp-servers/{name}`), fetch a tool list now (`.../refresh`) and accept a
 * changed tool definition (`.../tools/{tool}/accept`), and start toolgate's OAuth sign-in at a
 * server that requires it (`.../sign-in`; the browser side is sign-in-routes.ts). Admin role only: a server's tools run
 * with the gateway's reach and its headers carry secrets.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AuthEnv } from "../../auth/auth-env.ts";
import { requireRole } from "../../auth/require-role.ts";
import { loadConfig } from "../../config/config.ts";
import { failureResponse, validationHook } from "../../http/request-failure.ts";
import { requestOrigin } from "../../http/request-origin.ts";
import { errorResponses } from "../../http/schemas.ts";
import { checkOutboundUrl } from "../../net/outbound-url.ts";
import { deleteConnectionsTo } from "./connections/connection-store.ts";
import { federation } from "./federation.ts";
import { McpServerBody, McpServerPutBody, McpServerStatusSchema, PinSchema, toWirePin, toWireStatus } from "./mcp-servers-schemas.ts";
import { deleteSignIn } from "./oauth-store.ts";
import { deletePins } from "./pins.ts";
import { type McpServerConfig } from "./server-config.ts";
import { deleteStored, readStored, writeStored } from "./server-store.ts";
import { deleteToolList } from "./tool-list-cache.ts";

const SignInSchema = z
  .object({
    server: z.string(),
    sign_in_url: z.string().openapi({ description: "Open in a browser, once; the callback finishes the sign-in in that browser." }),
    expires_at: z.string(),
  })
  .openapi("McpServerSignIn");

const NameParam = z.object({ name: z.string().openapi({ example: "github" }) });
const statusContent = { "application/json": { schema: McpServerStatusSchema } };

const listServers = createRoute({
  method: "get",
  path: "/v1/mcp-servers",
  summary: "Configured remote MCP servers and their tools",
  responses: {
    200: { description: "Every server, sorted by name.", content: { "application/json": { schema: z.object({ servers: z.array(McpServerStatusSchema) }) } } },
    ...errorResponses(403, 503),
  },
});

const createServer = createRoute({
  method: "post",
  path: "/v1/mcp-servers",
  summary: "Add a remote MCP server",
  description:
    "Its tools join the registry as toolset `mcp-<name>`, named `mcp__<name>__<tool>`. The server is listed at once; a server that is down is still added (see `last_error`).",
  request: { body: { required: true, content: { "application/json": { schema: McpServerBody } } } },
  responses: { 201: { description: "Added.", content: statusContent }, ...errorResponses(400, 403, 409, 413, 415) },
});

const getServer = createRoute({
  method: "get",
  path: "/v1/mcp-servers/{name}",
  summary: "One server: configuration, tools, pins, refused tools and the last error",
  request: { params: NameParam },
  responses: { 200: { description: "The server's status.", content: statusContent }, ...errorResponses(403, 404) },
});

const replaceServer = createRoute({
  method: "put",
  path: "/v1/mcp-servers/{name}",
  summary: "Replace a server's configuration",
  request: { params: NameParam, body: { required: true, content: { "application/json": { schema: McpServerPutBody } } } },
  responses: { 200: { description: "Replaced; the tool list is fetched again.", content: statusContent }, ...errorResponses(400, 403, 404, 409, 413, 415) },
});

const deleteServer = createRoute({
  method: "delete",
  path: "/v1/mcp-servers/{name}",
  summary: "Remove a server; its tools leave the registry",
  request: { params: NameParam },
  responses: { 204: { description: "Removed." }, ...errorResponses(403, 404, 409) },
});

const refreshServer = createRoute({
  method: "post",
  path: "/v1/mcp-servers/{name}/refresh",
  summary: "Fetch the server's tool list now",
  request: { params: NameParam },
  responses: { 200: { description: "Listed and registered.", content: statusContent }, ...errorResponses(403, 404, 502) },
});

const acceptTool = createRoute({
  method: "post",
  path: "/v1/mcp-servers/{name}/tools/{tool}/accept",
  summary: "Accept a remote tool's changed definition as its new pin",
  request: {
    params: NameParam.extend({
      tool: z.string().openapi({ description: "The registry name (`mcp__github__create_issue`) or the server's name for the tool.", example: "create_issue" }),
    }),
  },
  responses: {
    200: {
      description: "Accepted: the tool is pinned to its current definition and no longer blocked.",
      content: { "application/json": { schema: z.object({ tool: z.string(), pin: PinSchema }) } },
    },
    ...errorResponses(403, 404, 409),
  },
});

const signIn = createRoute({
  method: "post",
  path: "/v1/mcp-servers/{name}/sign-in",
  summary: "Start toolgate's OAuth sign-in at a server that requires it",
  description:
    "Discovers the server's authorization server (RFC 9728, RFC 8414), registers toolgate there if needed (RFC 7591) and answers with a link a person opens in a browser, once, within 10 minutes. After they sign in at the server, the callback stores the tokens (AES-GCM under MCP_TOKEN_KEY) and the server's tools join. Needs the MCP_TOKEN_KEY secret.",
  request: { params: NameParam },
  responses: {
    201: { description: "Open `sign_in_url` in a browser.", content: { "application/json": { schema: SignInSchema } } },
    ...errorResponses(400, 403, 404),
  },
});

export const mcpServersRoutes = new OpenAPIHono<AuthEnv>({ defaultHook: validationHook });

// Hono's "/v1/mcp-servers/*" matches "/v1/mcp-servers" too.
mcpServersRoutes.use("/v1/mcp-servers/*", requireRole("admin"));

mcpServersRoutes
  .openapi(listServers, async (c) => {
    const statuses = await federation.statuses(c.env);
    if (statuses === undefined) {
      return failureResponse(c, {
        kind: "unavailable",
        message: "The MCP server configurations could not be read from KV just now, so the list would be out of date or empty; the failure was logged.",
        retryAfterSeconds: 30,
      });
    }
    return c.json({ servers: statuses.map(toWireStatus) }, 200);
  })
  .openapi(createServer, async (c) => {
    const config = c.req.valid("json");
    const refused = refusedUrl(config, c.env);
    if (refused !== undefined) return failureResponse(c, { kind: "invalid_request", issues: [{ path: "url", message: refused }] });
    const taken = loadConfig(c.env).mcpServers.some((s) => s.name === config.name) || (await readStored(c.env.KV, config.name)) !== null;
    if (taken)
      return failureResponse(c, {
        kind: "conflict",
        message: `An MCP server named '${config.name}' already exists; PUT /v1/mcp-servers/${config.name} replaces it.`,
      });
    const now = Date.now();
    await writeStored(c.env.KV, { config, createdAt: now, updatedAt: now });
    await federation.reload(c.env, { name: config.name, config });
    const wire = toWireStatus(await mustStatus(c.env, config.name));
    // A server that refused toolgate for want of sign-in: the answer carries the link at once.
    if (wire.auth.status === "needs_sign_in") {
      const started = await federation.startSignIn(c.env, config.name, c.get("principal").keyId, requestOrigin(c.req.url));
      if (started?.ok === true) wire.auth.sign_in_url = started.signInUrl;
      else if (started?.ok === false) wire.auth.reason = `${wire.auth.reason ?? ""} Sign-in cannot start: ${started.detail}`.trim();
    }
    return c.json(wire, 201);
  })
  .openapi(getServer, async (c) => {
    const { name } = c.req.valid("param");
    const status = await federation.status(c.env, name);
    if (status === undefined) return failureResponse(c, { kind: "unknown_mcp_server", name });
    return c.json(toWireStatus(status), 200);
  })
  .openapi(replaceServer, async (c) => {
    const { name } = c.req.valid("param");
    const config: McpServerConfig = { ...c.req.valid("json"), name };
    if (fromVar(c.env, name)) return failureResponse(c, { kind: "conflict", message: varOwned(name) });
    const stored = await readStored(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_mcp_server", name });
    const refused = refusedUrl(config, c.env);
    if (refused !== undefined) return failureResponse(c, { kind: "invalid_request", issues: [{ path: "url", message: refused }] });
    await writeStored(c.env.KV, { config, createdAt: stored.createdAt, updatedAt: Date.now() });
    await federation.reload(c.env, { name, config });
    return c.json(toWireStatus(await mustStatus(c.env, name)), 200);
  })
  .openapi(deleteServer, async (c) => {
    const { name } = c.req.valid("param");
    if (fromVar(c.env, name)) return failureResponse(c, { kind: "conflict", message: varOwned(name) });
    const stored = await readStored(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_mcp_server", name });
    await Promise.all([
      deleteStored(c.env.KV, name),
      deleteToolList(c.env.KV, name),
      deletePins(c.env.KV, name),
      deleteSignIn(c.env.KV, name),
      deleteConnectionsTo(c.env.DB, name),
    ]);
    // The reload drops the server, its tools and its remembered session.
    await federation.reload(c.env, { name, config: null });
    return c.body(null, 204);
  })
  .openapi(refreshServer, async (c) => {
    const { name } = c.req.valid("param");
    const refreshed = await federation.refresh(c.env, name);
    if (refreshed === undefined) return failureResponse(c, { kind: "unknown_mcp_server", name });
    if (refreshed.error !== undefined) return failureResponse(c, { kind: "mcp_server_unreachable", name, detail: refreshed.error });
    return c.json(toWireStatus(refreshed.status), 200);
  })
  .openapi(acceptTool, async (c) => {
    const { name, tool } = c.req.valid("param");
    const result = await federation.accept(c.env, name, tool, c.get("principal").keyId);
    if (result === undefined) {
      const known = (await federation.status(c.env, name)) !== undefined;
      return failureResponse(c, known ? { kind: "unknown_tool", name: tool, closeMatches: [] } : { kind: "unknown_mcp_server", name });
    }
    if (!result.accepted || result.pin === undefined) {
      return failureResponse(c, {
        kind: "conflict",
        message: `Tool '${tool}' of MCP server '${name}' has no changed definition to accept; it matches its pin.`,
      });
    }
    return c.json({ tool, pin: toWirePin(result.pin) }, 200);
  })
  .openapi(signIn, async (c) => {
    const { name } = c.req.valid("param");
    const started = await federation.startSignIn(c.env, name, c.get("principal").keyId, requestOrigin(c.req.url));
    if (started === undefined) return failureResponse(c, { kind: "unknown_mcp_server", name });
    if (!started.ok) return failureResponse(c, { kind: "mcp_sign_in_failed", reason: started.reason, detail: started.detail });
    return c.json({ server: name, sign_in_url: started.signInUrl, expires_at: new Date(started.expiresAt).toISOString() }, 201);
  });

function refusedUrl(config: McpServerConfig, env: Env): string | undefined {
  const checked = checkOutboundUrl(config.url, loadConfig(env).outboundAllow);
  return checked.ok ? undefined : checked.reason;
}

function fromVar(env: Env, name: string): boolean {
  return loadConfig(env).mcpServers.some((s) => s.name === name);
}

function varOwned(name: string): string {
  return `MCP server '${name}' is defined in the MCP_SERVERS configuration; change it there and redeploy.`;
}

async function mustStatus(env: Env, name: string) {
  const status = await federation.status(env, name);
  if (status === undefined) throw new Error(`MCP server '${name}' was written but is not loaded`);
  return status;
}
