/** `GET /v1/tools` and `GET /v1/tools/{name}`: definitions in each provider's shape. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { closeMatches } from "../../catalog/close-matches.ts";
import { DEFERRED_LISTING_TOOLSET, TOOL_SEARCH } from "../../catalog/tool-search-index.ts";
import { definitionsJson } from "../../formats/definitions-json.ts";
import { DEFINITION_FORMATS, toAnthropicTool, toGeminiDeclaration, toMcpTool, toOpenAITool, toResponsesTool } from "../../formats/tool-definitions.ts";
import { federation } from "../../mcp/federation/federation.ts";
import { PinSchema, toWirePin } from "../../mcp/federation/mcp-servers-schemas.ts";
import { availableEntries, describeTool } from "../../registry/definitions.ts";
import { registry } from "../../registry/registry.ts";
import { resolveToolset } from "../../toolsets/resolve.ts";
import { accessOf } from "../access.ts";
import { allowedToolNames } from "../allowed-tool-names.ts";
import { jsonText } from "../json-text.ts";
import { failureResponse } from "../request-failure.ts";
import { errorResponses, jsonSchemaObject } from "../schemas.ts";
import { AnthropicToolSchema, GeminiFunctionDeclarationSchema, McpToolSchema, OpenAIToolSchema, ResponsesToolSchema } from "../tool-list-schemas.ts";
import type { AppEnv } from "../types.ts";

const ToolListSchema = z
  .object({
    format: z.enum(DEFINITION_FORMATS),
    toolset: z.string().nullable(),
    tools: z.array(z.union([OpenAIToolSchema, AnthropicToolSchema, McpToolSchema, ResponsesToolSchema, GeminiFunctionDeclarationSchema])),
    deferred: z
      .number()
      .int()
      .optional()
      .openapi({ description: "With `defer=true`: how many more tools this key may use that were left out; `tool_search` finds them." }),
    pin_changes: z
      .array(z.object({ tool: z.string(), pin: PinSchema }))
      .optional()
      .openapi({
        description:
          "Present when remote MCP tools this key may use changed definition since they were pinned; `blocked` ones are left out of `tools` until an admin accepts them.",
      }),
  })
  .openapi("ToolList");

const listTools = createRoute({
  method: "get",
  path: "/v1/tools",
  summary: "Definitions of the available tools",
  description: "Unavailable tools (a failing check, a missing env var) are left out. Sorted by name.",
  request: {
    query: z.object({
      toolset: z.string().optional().openapi({ description: "Only tools this toolset resolves to; `all` or `*` for every tool.", example: "research" }),
      format: z.enum(DEFINITION_FORMATS).default("openai").openapi({
        description:
          "The provider shape of each definition: `openai` (Chat Completions), `responses` (OpenAI Responses), `anthropic`, `gemini` (`functionDeclarations` entries) or `mcp`.",
      }),
      defer: z.enum(["true", "false"]).default("false").openapi({
        description:
          "`true` lists only the core tools and `tool_search`, which finds the others on demand: for keys with more tools than a model's context should carry.",
      }),
    }),
  },
  responses: {
    200: {
      description: "The definitions, ready to pass as the provider's `tools` parameter.",
      content: { "application/json": { schema: ToolListSchema } },
    },
    ...errorResponses(400, 404),
  },
});

const getTool = createRoute({
  method: "get",
  path: "/v1/tools/{name}",
  summary: "One tool's definition and availability",
  request: { params: z.object({ name: z.string().openapi({ example: "echo" }) }) },
  responses: {
    200: {
      description: "The tool, whether it can work now, and why not.",
      content: {
        "application/json": {
          schema: z
            .object({
              name: z.string(),
              toolset: z.string(),
              description: z.string(),
              emoji: z.string(),
              parameters: jsonSchemaObject(),
              available: z.boolean(),
              unavailable_reason: z.string().nullable(),
              checked_at: z.string().nullable(),
              requires_env: z.array(z.string()),
              max_result_size_chars: z.number().nullable().openapi({ description: "null means unlimited." }),
              definitions: z.object({ openai: z.unknown(), anthropic: z.unknown(), mcp: z.unknown(), responses: z.unknown(), gemini: z.unknown() }),
              pin: PinSchema.nullable().openapi({ description: "For remote MCP tools: whether the definition still matches the one pinned when first seen." }),
            })
            .openapi("ToolDetail"),
        },
      },
    },
    ...errorResponses(404),
  },
});

export const toolsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listTools, async (c) => {
    const { toolset, format, defer } = c.req.valid("query");
    const allowed = await allowedToolNames(c, toolset);
    if ("unknownToolset" in allowed) return failureResponse(c, { kind: "unknown_toolset", name: allowed.unknownToolset });
    const listed = defer === "true" ? await deferredListing(allowed) : allowed;
    const entries = await availableEntries(listed, c.env);
    const pinChanges = allowed.flatMap((name) => {
      const pin = federation.pinOf(name);
      return pin === undefined || pin.status === "pinned" ? [] : [{ tool: name, pin: toWirePin(pin) }];
    });
    // Assembled from cached per-tool JSON (formats/definitions-json.ts); same body as c.json would give.
    const flagged = pinChanges.length === 0 ? "" : `,"pin_changes":${JSON.stringify(pinChanges)}`;
    const deferred = defer === "true" ? `,"deferred":${allowed.length - listed.length}` : "";
    const body = `{"format":${JSON.stringify(format)},"toolset":${JSON.stringify(toolset ?? null)},"tools":${definitionsJson(entries, format, c.env)}${deferred}${flagged}}`;
    return jsonText<z.infer<typeof ToolListSchema>>(c, body, 200);
  })
  .openapi(getTool, async (c) => {
    const { name } = c.req.valid("param");
    // A tool this key may not use is answered like an unknown one: its existence is not shared.
    const access = await accessOf(c);
    const found = access.decide(name).allowed ? await describeTool(name, c.env) : undefined;
    if (found === undefined) {
      const visible = registry.names().filter((n) => access.decide(n).allowed);
      return failureResponse(c, { kind: "unknown_tool", name, closeMatches: closeMatches(name, visible) });
    }
    const { entry, definition, availability } = found;
    return c.json(
      {
        name: entry.name,
        toolset: entry.toolset,
        description: definition.description,
        emoji: entry.emoji,
        parameters: definition.parameters,
        available: availability.available,
        unavailable_reason: availability.reason ?? null,
        checked_at: availability.checkedAt === undefined ? null : new Date(availability.checkedAt).toISOString(),
        requires_env: [...entry.requiresEnv],
        max_result_size_chars: Number.isFinite(entry.maxResultSizeChars) ? entry.maxResultSizeChars : null,
        definitions: {
          openai: toOpenAITool(definition),
          anthropic: toAnthropicTool(definition),
          mcp: toMcpTool(definition),
          responses: toResponsesTool(definition),
          gemini: toGeminiDeclaration(definition),
        },
        pin: pinOf(entry.name),
      },
      200,
    );
  });

/** The allowed tools a deferred listing keeps: the core toolset's and tool_search. */
async function deferredListing(allowed: readonly string[]): Promise<string[]> {
  const kept = new Set(await resolveToolset(DEFERRED_LISTING_TOOLSET));
  kept.add(TOOL_SEARCH);
  return allowed.filter((name) => kept.has(name));
}

function pinOf(name: string) {
  const pin = federation.pinOf(name);
  return pin === undefined ? null : toWirePin(pin);
}
