/** Wire shapes of the MCP servers API, and the mapping from federation status to them. */
import { z } from "@hono/zod-openapi";
import { mcpServerConfigSchema } from "./server-config.ts";
import type { PinStatus, ServerStatus } from "./server-state.ts";

export const McpServerBody = mcpServerConfigSchema().openapi("McpServerConfig", {
  example: {
    name: "github",
    url: "https://api.githubcopilot.com/mcp/",
    headers: { Authorization: { secret: "GITHUB_MCP_TOKEN" } },
    exclude: ["delete_*"],
    pin: "block",
  },
});

/** PUT takes the same fields; the name comes from the path. */
export const McpServerPutBody = mcpServerConfigSchema().omit({ name: true }).openapi("McpServerReplace");

const PinnedDefinitionSchema = z.object({ name: z.string(), description: z.string(), inputSchema: z.unknown() }).openapi("PinnedToolDefinition");

export const PinSchema = z
  .object({
    status: z.enum(["pinned", "changed", "blocked"]).openapi({
      description: "`changed`: the definition differs from the pinned one; `blocked`: changed, and the server blocks changed tools until accepted.",
    }),
    pinned_sha256: z.string(),
    current_sha256: z.string().nullable(),
    changed_at: z.string().nullable(),
    pinned_definition: PinnedDefinitionSchema.nullable().openapi({
      description: "For a changed tool: the accepted definition (null when the pin predates kept definitions).",
    }),
    current_definition: PinnedDefinitionSchema.nullable().openapi({
      description: "For a changed tool: the definition the server now lists, which accept would pin.",
    }),
  })
  .openapi("ToolPin");

export const McpServerAuthSchema = z
  .object({
    mode: z
      .enum(["headers", "oauth", "none"])
      .openapi({ description: "`headers`: an Authorization header from a secret; `oauth`: toolgate's own sign-in at the server; `none`: no credentials." }),
    status: z.enum(["not_required", "signed_in", "needs_sign_in"]).openapi({
      description:
        "`needs_sign_in`: the server refused toolgate (401) or its token could not be refreshed; an admin must sign in (POST /v1/mcp-servers/{name}/sign-in).",
    }),
    reason: z.string().nullable(),
    signed_in_by: z.string().nullable(),
    signed_in_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: "When the access token expires (it is refreshed before then)." }),
    sign_in_url: z
      .string()
      .nullable()
      .openapi({ description: "Only in the answer that added the server, when it needs sign-in: the link a person opens (once, within 10 minutes)." }),
  })
  .openapi("McpServerAuth");

export const McpServerStatusSchema = z
  .object({
    name: z.string(),
    source: z.enum(["config", "api"]).openapi({ description: "`config`: from the MCP_SERVERS var (read-only here); `api`: added through this API." }),
    url: z.string(),
    enabled: z.boolean(),
    timeout_ms: z.number().int(),
    include: z.array(z.string()).nullable(),
    exclude: z.array(z.string()),
    pin: z.enum(["warn", "block"]),
    headers: z
      .record(z.string(), z.object({ secret: z.string() }))
      .openapi({ description: "Header name → the secret (env var) whose value is sent; values are never shown." }),
    oauth: z.object({ client_id: z.string().optional(), client_secret: z.object({ secret: z.string() }).optional(), scope: z.string().optional() }).nullable(),
    identity: z
      .object({ header: z.string(), audience: z.string().optional(), ttl_minutes: z.number().int() })
      .nullable()
      .openapi({ description: "The signed identity token sent on each call (docs/identity.md), or null." }),
    toolset: z.string(),
    transport: z.enum(["streamable-http", "sse"]).nullable(),
    list_fetched_at: z.string().nullable(),
    tools: z.array(z.object({ name: z.string(), remote_name: z.string(), pin: PinSchema, schema_note: z.string().nullable() })),
    problems: z.array(z.string()).openapi({ description: "Tools that were not registered and why (name collisions fail closed)." }),
    last_error: z.object({ at: z.string(), message: z.string() }).nullable(),
    auth: McpServerAuthSchema,
  })
  .openapi("McpServerStatus");

export function toWirePin(pin: PinStatus): z.infer<typeof PinSchema> {
  return {
    status: pin.status,
    pinned_sha256: pin.pinnedSha256,
    current_sha256: pin.currentSha256 ?? null,
    changed_at: pin.changedAt === undefined ? null : new Date(pin.changedAt).toISOString(),
    pinned_definition: pin.pinnedDefinition ?? null,
    current_definition: pin.currentDefinition ?? null,
  };
}

export function toWireStatus(status: ServerStatus): z.infer<typeof McpServerStatusSchema> {
  const { config } = status;
  return {
    name: status.name,
    source: status.source,
    url: config.url,
    enabled: config.enabled,
    timeout_ms: config.timeout_ms,
    include: config.include ?? null,
    exclude: config.exclude,
    pin: config.pin,
    headers: config.headers,
    oauth: config.oauth ?? null,
    identity: config.identity ?? null,
    toolset: status.toolset,
    transport: status.transport,
    list_fetched_at: status.listFetchedAt === null ? null : new Date(status.listFetchedAt).toISOString(),
    tools: status.tools.map((tool) => ({ name: tool.name, remote_name: tool.remoteName, pin: toWirePin(tool.pin), schema_note: tool.schemaNote ?? null })),
    problems: status.problems,
    last_error: status.lastError === null ? null : { at: new Date(status.lastError.at).toISOString(), message: status.lastError.message },
    auth: {
      mode: status.auth.mode,
      status: status.auth.status,
      reason: status.auth.reason ?? null,
      signed_in_by: status.auth.signedInBy ?? null,
      signed_in_at: isoOrNull(status.auth.signedInAt),
      expires_at: isoOrNull(status.auth.expiresAt),
      sign_in_url: null,
    },
  };
}

const isoOrNull = (at: number | undefined): string | null => (at === undefined ? null : new Date(at).toISOString());
