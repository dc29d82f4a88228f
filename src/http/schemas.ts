/** Response schemas shared by the routes, so /openapi.json documents every body we send. */
import { z } from "@hono/zod-openapi";

export const ErrorBodySchema = z
  .object({
    error: z.string().openapi({ example: "Unknown toolset: nope" }),
    error_code: z.string().openapi({ example: "UNKNOWN_TOOLSET" }),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    suggestion: z.string().optional(),
  })
  .openapi("RequestError");

/** The body of every request-level failure (request-failure.ts types its responses with it). */
export type RequestErrorWire = z.infer<typeof ErrorBodySchema>;

const errorContent = { "application/json": { schema: ErrorBodySchema } };

type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 422 | 500 | 502 | 503;

const ERROR_TEXT: Record<401 | ErrorStatus, string> = {
  400: "The request is malformed or a field is invalid; `issues` names each field.",
  401: "No key, a malformed Authorization header, or an unknown or revoked key.",
  403: "The key's role may not use this route.",
  404: "The named resource does not exist.",
  409: "The request conflicts with an existing resource.",
  413: "The body or the batch is over its limit.",
  415: "The body is not sent as application/json.",
  422: "The request is well-formed but what it points at cannot be used (a spec that cannot be converted); the body says why.",
  500: "An internal error; the failure was logged.",
  502: "A remote server the route depends on could not be reached or did not answer correctly.",
  503: "A service the route needs is not configured or not available now; the body names what to set or when to retry.",
};

/**
 * The error responses of a /v1 route, for its OpenAPI entry: 401 always (every /v1 route needs
 * a key), plus the statuses given.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S) {
  return Object.fromEntries([401, ...statuses].map((s) => [s, { description: ERROR_TEXT[s as 401 | ErrorStatus], content: errorContent }])) as {
    [K in 401 | S[number]]: { description: string; content: typeof errorContent };
  };
}

export const JsonSchemaObject = z.record(z.string(), z.unknown()).openapi({ description: "A JSON Schema object." });

export const ToolsetSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    kind: z
      .enum(["static", "registry", "preset", "custom"])
      .openapi({ description: "`preset`: decided by each tool's metadata (`safe`, `agent`), so new tools join without a list changing." }),
    tools: z.array(z.string()).openapi({ description: "Tools listed directly in this toolset." }),
    includes: z.array(z.string()),
    resolved_tools: z.array(z.string()).openapi({ description: "Every tool reachable through includes, deduplicated and sorted." }),
    aliases: z
      .record(z.string(), z.object({ name: z.string().optional(), description: z.string().optional() }))
      .openapi({ description: "Curated names and descriptions `/mcp/{name}` presents, keyed by the real tool name (custom toolsets only)." }),
  })
  .openapi("Toolset");

export const OpenAIToolSchema = z
  .object({
    type: z.literal("function"),
    function: z.object({ name: z.string(), description: z.string(), parameters: JsonSchemaObject }),
  })
  .openapi("OpenAITool", { description: "OpenAI Chat Completions `tools[]` entry." });

export const AnthropicToolSchema = z
  .object({ name: z.string(), description: z.string(), input_schema: JsonSchemaObject })
  .openapi("AnthropicTool", { description: "Anthropic Messages `tools[]` entry." });

export const McpToolSchema = z
  .object({ name: z.string(), description: z.string(), inputSchema: JsonSchemaObject })
  .openapi("McpTool", { description: "MCP `tools/list` entry." });

export const ResponsesToolSchema = z
  .object({ type: z.literal("function"), name: z.string(), description: z.string(), parameters: JsonSchemaObject, strict: z.literal(false) })
  .openapi("ResponsesTool", { description: "OpenAI Responses `tools[]` entry (the function fields flattened; `strict` false)." });

export const GeminiFunctionDeclarationSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    parameters: z
      .record(z.string(), z.unknown())
      .openapi({ description: "Gemini's OpenAPI-subset Schema (upper-case types, `nullable`, string enums); docs/formats.md says what is converted." }),
  })
  .openapi("GeminiFunctionDeclaration", { description: "Gemini `functionDeclarations[]` entry: pass the list as `tools: [{functionDeclarations: tools}]`." });
