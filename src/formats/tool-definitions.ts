/**
 * Tool definitions in each provider's native request shape. The neutral ToolDefinition comes
 * from the registry; these are the only places that know a provider's field names.
 */
import type { JsonSchema, ToolDefinition } from "../registry/types.ts";

export const DEFINITION_FORMATS = ["openai", "anthropic", "mcp"] as const;
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

export function toOpenAITool(definition: ToolDefinition): OpenAITool {
  return { type: "function", function: { name: definition.name, description: definition.description, parameters: definition.parameters } };
}

export function toAnthropicTool(definition: ToolDefinition): AnthropicTool {
  return { name: definition.name, description: definition.description, input_schema: definition.parameters };
}

export function toMcpTool(definition: ToolDefinition): McpTool {
  return { name: definition.name, description: definition.description, inputSchema: definition.parameters };
}

/** Converts definitions to one provider's shape. */
export function formatDefinitions(definitions: readonly ToolDefinition[], format: DefinitionFormat): OpenAITool[] | AnthropicTool[] | McpTool[] {
  switch (format) {
    case "openai":
      return definitions.map(toOpenAITool);
    case "anthropic":
      return definitions.map(toAnthropicTool);
    case "mcp":
      return definitions.map(toMcpTool);
  }
}
