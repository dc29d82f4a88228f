/**
 * What an admin configures for one remote MCP server, through `/v1/mcp-servers` or the
 * `MCP_SERVERS` var: one zod schema for both, so the API and the configuration reject the same
 * mistakes with the same messages.
 *
 * Header values are references to secrets by env var name (`{"secret": "GITHUB_MCP_TOKEN"}`),
 * never values: a record in KV or a var in wrangler.toml must not hold a credential in clear.
 */
// zod-openapi's z (zod itself plus `.openapi()`), so the API can document this very schema.

import { z } from "@hono/zod-openapi";
import { once } from "../../bundle/once.ts";
import { identityOptionSchema } from "../../identity/identity-option.ts";
import { HEADER_NAME_PATTERN } from "../../net/header-name.ts";
import { SECRET_NAME_PATTERN } from "../../net/secret-headers.ts";

/** The reference client's default tool-call timeout. */
const DEFAULT_MCP_TIMEOUT_MS = 120_000;

/** Server names become part of tool names (`mcp__<server>__<tool>`) and of URLs. */
const SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Headers the client sets itself: a configured value would break the protocol. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "content-length", "host", "mcp-session-id", "mcp-protocol-version"]);

/**
 * The answer to a stdio server's configuration (`command`/`args`, as desktop clients take it):
 * a Worker has no processes, so it says how to reach the same server over HTTP instead.
 */
export const STDIO_REFUSAL =
  "toolgate runs in a Cloudflare Worker, which cannot spawn processes, so it cannot start a stdio MCP server from command/args. " +
  'Run the server behind an HTTP bridge on a machine you control (for example: npx -y supergateway --stdio "<command> <args>" --outputTransport streamableHttp --port 8000, which serves it at http://<host>:8000/mcp) ' +
  "and give toolgate that URL as url, with any credentials the bridge needs under headers.";

/** A server's configuration, built at first use (the var, a stored record, the routes), not at start-up. */
export const mcpServerConfigSchema = once(() => {
  const SecretRef = z.strictObject({
    secret: z.string().regex(SECRET_NAME_PATTERN, "must name an environment variable (a Worker secret), such as GITHUB_MCP_TOKEN"),
  });

  const toolPatterns = z.array(z.string().min(1).max(200)).max(500);

  /** Refuses the stdio fields with that message instead of zod's "unrecognized key". */
  const stdioField = z
    .unknown()
    .refine((value) => value === undefined, { error: STDIO_REFUSAL })
    .optional()
    .openapi({ description: "Refused: a Worker cannot start a stdio server. Put it behind an HTTP bridge and give its url." });

  return z.strictObject({
    name: z.string().regex(SERVER_NAME_PATTERN, "must be 1-32 letters, digits, '_' or '-', starting with a letter or digit"),
    command: stdioField,
    args: stdioField,
    url: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the server's MCP endpoint" }),
    /** Header name → the secret whose value is sent. */
    headers: z
      .record(z.string().regex(HEADER_NAME_PATTERN, "must be a valid HTTP header name"), SecretRef)
      .refine(
        (headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())),
        "may not set Accept, Content-Type, Host or the MCP session headers",
      )
      .default({}),
    /** Per request to the server, and the deadline of its tools' calls. */
    timeout_ms: z.number().int().min(100).max(600_000).default(DEFAULT_MCP_TIMEOUT_MS),
    /** Remote tool names or globs to offer; when given, only these (include wins over exclude). */
    include: toolPatterns.optional(),
    /** Remote tool names or globs to leave out. */
    exclude: toolPatterns.default([]),
    enabled: z.boolean().default(true),
    /** What a changed definition of a pinned tool does: flag it (`warn`) or also block it until accepted. */
    pin: z.enum(["warn", "block"]).default("warn"),
    /**
     * For servers that require OAuth sign-in: a client registered by hand at their authorization
     * server (when it offers no dynamic registration), and the scopes to ask for when the server
     * does not say. Without it toolgate registers itself.
     */
    oauth: z
      .strictObject({
        client_id: z.string().min(1).max(500).optional(),
        client_secret: SecretRef.optional(),
        scope: z.string().min(1).max(1000).optional(),
      })
      .refine((oauth) => oauth.client_secret === undefined || oauth.client_id !== undefined, "client_secret needs client_id")
      .optional(),
    /**
     * Whose account a call uses at the server: `shared`, the one toolgate signed in with (or its
     * headers); `per_user`, each caller's own connection (src/mcp/federation/connections/);
     * `token_exchange`, a token the server's authorization server issues for the caller's own
     * toolgate OAuth token (RFC 8693; token_exchange below). In the last two the shared sign-in
     * (or headers) only lists the tools.
     */
    auth_mode: z.enum(["shared", "per_user", "token_exchange"]).default("shared"),
    /**
     * For `auth_mode: "token_exchange"`: toolgate's client at the server's authorization server
     * (its secret by env var name), and where the token endpoint is when discovery (RFC 9728, RFC
     * 8414) cannot find it; `audience` and `scope` are sent when given. Checked at call time, as
     * a cross-field rule would keep the schema from being reused for PUT's body.
     */
    token_exchange: z
      .strictObject({
        client_id: z.string().min(1).max(500),
        client_secret: SecretRef,
        token_endpoint: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the authorization server's token endpoint" }).optional(),
        audience: z.string().min(1).max(500).optional(),
        scope: z.string().min(1).max(1000).optional(),
      })
      .optional(),
    /** A signed JWT naming the caller on every tool call (src/identity/), for internal servers that authorise people. */
    identity: identityOptionSchema().optional(),
  });
});

export type McpServerConfig = z.output<ReturnType<typeof mcpServerConfigSchema>>;
export type McpServerInput = z.input<ReturnType<typeof mcpServerConfigSchema>>;

/** The list the `MCP_SERVERS` var holds: a JSON array of server configurations, names unique. */
const mcpServersVarSchema = once(() =>
  z
    .array(mcpServerConfigSchema())
    .max(100)
    .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, "server names must be unique"),
);

/**
 * Parses the `MCP_SERVERS` var (a JSON array); empty or unset means none. Issues name the
 * server's index and field, for config.ts to report.
 */
export function parseMcpServersVar(text: string | undefined): { ok: true; servers: McpServerConfig[] } | { ok: false; message: string } {
  if (text === undefined || text.trim() === "") return { ok: true, servers: [] };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `must be a JSON array of MCP server objects: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = mcpServersVarSchema().safeParse(data);
  if (parsed.success) return { ok: true, servers: parsed.data };
  return {
    ok: false,
    message: parsed.error.issues.map((issue) => `${issue.path.length === 0 ? "" : `[${issue.path.join(".")}] `}${issue.message}`).join("; "),
  };
}
