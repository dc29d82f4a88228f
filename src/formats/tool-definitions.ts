/**
 * Tool definitions in each provider's native request shape. The neutral ToolDefinition comes
 * from the registry; these are the only places that know a provider's field names.
 */
import type { JsonSchema, ToolDefinition } from "../registry/types.ts";
import { type GeminiSchema, toGeminiSchema } from "./gemini-schema.ts";

/** `responses`: OpenAI's Responses API; `gemini`: Gemini's `functionDeclarations`. */
export const DEFINITION_FORMATS = ["openai", "anthropic", "mcp", "responses", "gemini"] as const;
export type DefinitionFormat = (typeof DEFINITION_FORMATS)[number];

/** OpenAI Chat Completions `tools[]` entry. */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Anthropic Messages `tools[]` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/** MCP `tools/list` entry. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * OpenAI Responses `tools[]` entry: the Chat Completions function, flattened. `strict` is false
 * because strict mode needs every property required and no optional ones, which most tools' schemas
 * are not; our own validation applies either way.
 */
export interface ResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: false;
}

/** Gemini `functionDeclarations[]` entry; wrap the list as `tools: [{functionDeclarations}]`. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters: GeminiSchema;
}

export function toOpenAITool(definition: ToolDefinition): OpenAITool {
  return { type: "function", function: { name: definition.name, description: definition.description, parameters: definition.parameters } };
}

export function toAnthropicTool(definition: ToolDefinition): AnthropicTool {
  return { name: definition.name, description: definition.description, input_schema: definition.parameters };
}

export function toMcpTool(definition: ToolDefinition): McpTool {
  return { name: definition.name, description: definition.description, inputSchema: definition.parameters };
}

export function toResponsesTool(definition: ToolDefinition): ResponsesTool {
  return { type: "function", name: definition.name, description: definition.description, parameters: definition.parameters, strict: false };
}

export function toGeminiDeclaration(definition: ToolDefinition): GeminiFunctionDeclaration {
  return { name: definition.name, description: definition.description, parameters: toGeminiSchema(definition.parameters) };
}

/** Any one provider's definition. */
export type FormattedTool = OpenAITool | AnthropicTool | McpTool | ResponsesTool | GeminiFunctionDeclaration;

/** Converts definitions to one provider's shape. */
export function formatDefinitions(definitions: readonly ToolDefinition[], format: DefinitionFormat): FormattedTool[] {
  switch (format) {
    case "openai":
      return definitions.map(toOpenAITool);
    case "anthropic":
      return definitions.map(toAnthropicTool);
    case "mcp":
      return definitions.map(toMcpTool);
    case "responses":
      return definitions.map(toResponsesTool);
    case "gemini":
      return definitions.map(toGeminiDeclaration);
  }
}
