/**
 * Our wire shapes against the providers' own SDK types. The assignments below are checked by
 * `npm run typecheck` (tsc over test/): if a provider's request types drift from what we emit or
 * accept, the build fails. At run time the same objects come from the real API, and the key
 * checks make sure nothing extra rides along (both providers refuse unknown message fields).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { AnthropicToolResult, CallResult, OpenAIToolMessage, toolCallSchemas } from "../../src/formats/tool-calls.ts";
import type { AnthropicTool, McpTool, OpenAITool } from "../../src/formats/tool-definitions.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";

type OpenAIFunctionTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;
type OpenAIToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
type OpenAIToolMessageParam = OpenAI.Chat.Completions.ChatCompletionToolMessageParam;
type AnthropicToolParam = Anthropic.Messages.Tool;
type AnthropicToolUse = Anthropic.Messages.ToolUseBlock;
type AnthropicToolResultParam = Anthropic.Messages.ToolResultBlockParam;
type IncomingCall = z.input<ReturnType<typeof toolCallSchemas>["ToolCallSchema"]>;

describe("provider SDK shapes", () => {
  it("emits OpenAI tool definitions the OpenAI SDK accepts as tools", async () => {
    const { tools } = await json<{ tools: OpenAITool[] }>(await api("/v1/tools?format=openai"));
    const asSdk: OpenAIFunctionTool[] = tools;
    expect(asSdk.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(Object.keys(tool).sort()).toEqual(["function", "type"]);
      expect(Object.keys(tool.function).sort()).toEqual(["description", "name", "parameters"]);
    }
  });

  it("emits Anthropic tool definitions the Anthropic SDK accepts as tools", async () => {
    const { tools } = await json<{ tools: AnthropicTool[] }>(await api("/v1/tools?format=anthropic"));
    const asSdk: AnthropicToolParam[] = tools.map((tool) => ({ ...tool, input_schema: { ...tool.input_schema, type: "object" as const } }));
    expect(asSdk.every((tool) => tool.input_schema.type === "object")).toBe(true);
    for (const tool of tools) expect(Object.keys(tool).sort()).toEqual(["description", "input_schema", "name"]);
  });

  it("emits MCP tool definitions with the fields tools/list requires", async () => {
    const { tools } = await json<{ tools: McpTool[] }>(await api("/v1/tools?format=mcp"));
    for (const tool of tools) {
      expect(Object.keys(tool).sort()).toEqual(["description", "inputSchema", "name"]);
      expect(tool.inputSchema.type).toBe("object");
    }
  });

  it("accepts tool calls exactly as both SDKs type them and answers with messages they accept", async () => {
    const openaiCall: OpenAIToolCall = { id: "call_sdk", type: "function", function: { name: "echo", arguments: '{"text":"sdk"}' } };
    const anthropicCall: AnthropicToolUse = { type: "tool_use", id: "toolu_sdk", name: "echo", input: { text: "sdk" }, caller: { type: "direct" } };
    const { caller: _caller, ...anthropicRequest } = anthropicCall;
    const calls: IncomingCall[] = [openaiCall, anthropicRequest];
    const { results } = await json<{ results: CallResult[] }>(await api("/v1/tool-calls", { body: { tool_calls: calls } }));

    const toolMessage: OpenAIToolMessageParam = results[0]?.message as OpenAIToolMessage;
    const toolResult: AnthropicToolResultParam = results[1]?.message as AnthropicToolResult;
    expect(toolMessage).toEqual({ role: "tool", tool_call_id: "call_sdk", content: '{"text":"sdk"}' });
    expect(toolResult).toEqual({ type: "tool_result", tool_use_id: "toolu_sdk", content: '{"text":"sdk"}', is_error: false });
  });
});
