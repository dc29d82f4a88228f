/**
 * The response shapes of the tool and toolset listings (routes/tools.ts, routes/toolsets.ts),
 * apart from schemas.ts so that building the app at a cold isolate's first request does not
 * build them: only those lazily loaded routes use them.
 */
import { z } from "@hono/zod-openapi";
import { jsonSchemaObject } from "./schemas.ts";

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
    function: z.object({ name: z.string(), description: z.string(), parameters: jsonSchemaObject() }),
  })
  .openapi("OpenAITool", { description: "OpenAI Chat Completions `tools[]` entry." });

export const AnthropicToolSchema = z
  .object({ name: z.string(), description: z.string(), input_schema: jsonSchemaObject() })
  .openapi("AnthropicTool", { description: "Anthropic Messages `tools[]` entry." });

export const McpToolSchema = z
  .object({ name: z.string(), description: z.string(), inputSchema: jsonSchemaObject() })
  .openapi("McpTool", { description: "MCP `tools/list` entry." });

export const ResponsesToolSchema = z
  .object({ type: z.literal("function"), name: z.string(), description: z.string(), parameters: jsonSchemaObject(), strict: z.literal(false) })
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
