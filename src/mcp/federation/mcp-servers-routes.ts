/**
 * The admin API for remote MCP servers: configure them (`GET/POST /v1/mcp-servers`,
 * `GET/PUT/DELETE /v1/mcp-servers/{name}`), fetch a tool list now (`.../refresh`) and accept a
 * changed tool definition (`.../tools/{tool}/accept`). Admin role only: a server's tools run
 * with the gateway's reach and its headers carry secrets.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AuthEnv } from "../../auth/auth-env.ts";
import { requireRole } from "../../auth/require-role.ts";
import { loadConfig } from "../../config/config.ts";
import { failureResponse, validationHook } from "../../http/request-failure.ts";
import { errorResponses } from "../../http/schemas.ts";
import { checkOutboundUrl } from "../../net/outbound-url.ts";
import { federation } from "./federation.ts";
import { McpServerBody, McpServerPutBody, McpServerStatusSchema, PinSchema, toWireStatus, toWirePin } from "./mcp-servers-schemas.ts";
import { deletePins } from "./pins.ts";
import { type McpServerConfig } from "./server-config.ts";
import { deleteStored, readStored, writeStored } from "./server-store.ts";
import { deleteToolList } from "./tool-list-cache.ts";

const NameParam = z.object({ name: z.string().openapi({ example: "github" }) });
const statusContent = { "application/json": { schema: McpServerStatusSchema } };

const listServers = createRoute({
  method: "get",
  path: "/v1/mcp-servers",
  summary: "Configured remote MCP servers and their tools",
  responses: { 200: { description: "Every server, sorted by name.", content: { "application/json": { schema: z.object({ servers: z.array(McpServerStatusSchema) }) } } }, ...errorResponses(403) },
});

const createServer = createRoute({
  method: "post",
  path: "/v1/mcp-servers",
  summary: "Add a remote MCP server",
  description: "Its tools join the registry as toolset `mcp-<name>`, named `mcp__<name>__<tool>`. The server is listed at once; a server that is down is still added (see `last_error`).",
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
  request: { params: NameParam.extend({ tool: z.string().openapi({ description: "The registry name (`mcp__github__create_issue`) or the server's name for the tool.", example: "create_issue" }) }) },
  responses: {
    200: { description: "Accepted: the tool is pinned to its current definition and no longer blocked.", content: { "application/json": { schema: z.object({ tool: z.string(), pin: PinSchema }) } } },
    ...errorResponses(403, 404, 409),
  },
});

export const mcpServersRoutes = new OpenAPIHono<AuthEnv>({ defaultHook: validationHook });

// Hono's "/v1/mcp-servers/*" matches "/v1/mcp-servers" too.
mcpServersRoutes.use("/v1/mcp-servers/*", requireRole("admin"));

mcpServersRoutes
  .openapi(listServers, async (c) => c.json({ servers: (await federation.statuses(c.env)).map(toWireStatus) }, 200))
  .openapi(createServer, async (c) => {
    const config = c.req.valid("json");
    const refused = refusedUrl(config, c.env);
    if (refused !== undefined) return failureResponse(c, { kind: "invalid_request", issues: [{ path: "url", message: refused }] });
    const taken = loadConfig(c.env).mcpServers.some((s) => s.name === config.name) || (await readStored(c.env.KV, config.name)) !== null;
    if (taken) return failureResponse(c, { kind: "conflict", message: `An MCP server named '${config.name}' already exists; PUT /v1/mcp-servers/${config.name} replaces it.` });
    const now = Date.now();
    await writeStored(c.env.KV, { config, createdAt: now, updatedAt: now });
    await federation.reload(c.env, { name: config.name, config });
    return c.json(toWireStatus(await mustStatus(c.env, config.name)), 201);
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
    await Promise.all([deleteStored(c.env.KV, name), deleteToolList(c.env.KV, name), deletePins(c.env.KV, name)]);
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
      return failureResponse(c, { kind: "conflict", message: `Tool '${tool}' of MCP server '${name}' has no changed definition to accept; it matches its pin.` });
    }
    return c.json({ tool, pin: toWirePin(result.pin) }, 200);
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
