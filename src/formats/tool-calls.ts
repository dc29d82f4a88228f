/**
 * The tool calls a model emits, in OpenAI's and Anthropic's shapes, and the result messages
 * each expects back. A batch is answered in the shape of each call, so a client can append the
 * results to its conversation as they are.
 */
import { z } from "@hono/zod-openapi";
import type { CallOutcome } from "../pipeline/types.ts";

export const OpenAIToolCallSchema = z
  .object({
    id: z.string().min(1).openapi({ example: "call_abc123" }),
    type: z.literal("function"),
    function: z.object({
      name: z.string().openapi({ example: "echo" }),
      arguments: z
        .union([z.string(), z.record(z.string(), z.unknown())])
        .openapi({ description: "The arguments as the model emitted them: a JSON string (an already-parsed object is accepted too).", example: "{\"text\":\"hi\"}" }),
    }),
  })
  .openapi("OpenAIToolCall");

export const AnthropicToolUseSchema = z
  .object({
    type: z.literal("tool_use"),
    id: z.string().min(1).openapi({ example: "toolu_01A" }),
    name: z.string().openapi({ example: "echo" }),
    input: z.unknown().openapi({ description: "The arguments object as the model emitted it.", example: { text: "hi" } }),
  })
  .openapi("AnthropicToolUse");

export const ToolCallSchema = z.union([OpenAIToolCallSchema, AnthropicToolUseSchema]);

export type IncomingToolCall = z.infer<typeof ToolCallSchema>;

/** A call reduced to what the pipeline needs, remembering which shape to answer in. */
export interface NormalizedCall {
  format: "openai" | "anthropic";
  id: string;
  name: string;
  arguments: unknown;
}

export function normalizeCall(call: IncomingToolCall): NormalizedCall {
  return call.type === "function"
    ? { format: "openai", id: call.id, name: call.function.name, arguments: call.function.arguments }
    : { format: "anthropic", id: call.id, name: call.name, arguments: call.input };
}

/** OpenAI Chat Completions tool message: append it to `messages` as it is. */
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** Anthropic content block: put it in the next user turn's `content` as it is. */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

/**
 * One entry of a batch's `results`. The provider message is kept apart from our fields because
 * both providers refuse unknown fields inside a message.
 */
export interface CallResult {
  id: string;
  tool: string;
  /** `pending_approval`: the call waits for a person's decision; `approval` says which. */
  status: "ok" | "error" | "pending_approval";
  error_code: string | null;
  /** The approval a pending call waits for: id, expiry (epoch ms) and the page that decides it. */
  approval?: { id: string; expires_at: number; url: string };
  duration_ms: number;
  attempts: number;
  truncated: boolean;
  message: OpenAIToolMessage | AnthropicToolResult;
}

/** The result of one call, with its message in the shape the call came in. */
export function toCallResult(call: NormalizedCall, outcome: CallOutcome): CallResult {
  const message: OpenAIToolMessage | AnthropicToolResult =
    call.format === "openai"
      ? { role: "tool", tool_call_id: call.id, content: outcome.content }
      : { type: "tool_result", tool_use_id: call.id, content: outcome.content, is_error: outcome.status !== "ok" };
  return {
    id: call.id,
    tool: call.name,
    status: outcome.status,
    error_code: outcome.errorCode ?? null,
    ...(outcome.approval === undefined ? {} : { approval: { id: outcome.approval.id, expires_at: outcome.approval.expiresAt, url: outcome.approval.url } }),
    duration_ms: outcome.durationMs,
    attempts: outcome.attempts,
    truncated: outcome.truncated,
    message,
  };
}
