/**
 * The tool calls a model emits, in OpenAI's (Chat Completions and Responses), Anthropic's and
 * Gemini's shapes, and the result each expects back. A batch is answered in the shape of each
 * call, so a client can append the results to its conversation as they are.
 */
import { z } from "@hono/zod-openapi";
import { once } from "../bundle/once.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import { isFailedMessage } from "./outcome-wire.ts";

/**
 * The shapes a batch accepts, built at first use: POST /v1/tool-calls validates with them, and
 * the generic webhook's payload holds OpenAI's. This module is imported at every isolate's
 * start-up (the webhook is), and a dozen schemas with OpenAPI metadata were a visible share of it
 * (issue 33).
 */
export const toolCallSchemas = once(() => {
  const OpenAIToolCallSchema = z
    .object({
      id: z.string().min(1).openapi({ example: "call_abc123" }),
      type: z.literal("function"),
      function: z.object({
        name: z.string().openapi({ example: "echo" }),
        arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).openapi({
          description: "The arguments as the model emitted them: a JSON string (an already-parsed object is accepted too).",
          example: '{"text":"hi"}',
        }),
      }),
    })
    .openapi("OpenAIToolCall");

  const AnthropicToolUseSchema = z
    .object({
      type: z.literal("tool_use"),
      id: z.string().min(1).openapi({ example: "toolu_01A" }),
      name: z.string().openapi({ example: "echo" }),
      input: z.unknown().openapi({ description: "The arguments object as the model emitted it.", example: { text: "hi" } }),
    })
    .openapi("AnthropicToolUse");

  /** An OpenAI Responses API output item: `call_id` links the call to its output. */
  const ResponsesFunctionCallSchema = z
    .object({
      type: z.literal("function_call"),
      call_id: z.string().min(1).openapi({ example: "call_abc123" }),
      name: z.string().openapi({ example: "echo" }),
      arguments: z.string().openapi({ description: "The arguments as the model emitted them: a JSON string.", example: '{"text":"hi"}' }),
      id: z.string().optional().openapi({ description: "The output item's own id (`fc_...`); not echoed." }),
    })
    .openapi("ResponsesFunctionCall");

  /** A Gemini content part holding a `functionCall`; `id` is optional in Gemini's API. */
  const GeminiFunctionCallPartSchema = z
    .object({
      functionCall: z.object({
        id: z.string().min(1).optional().openapi({ description: "Echoed in the answer's functionResponse when sent; generated otherwise." }),
        name: z.string().openapi({ example: "echo" }),
        args: z
          .record(z.string(), z.unknown())
          .optional()
          .openapi({ description: "The arguments object as the model emitted it.", example: { text: "hi" } }),
      }),
    })
    .openapi("GeminiFunctionCallPart");

  /** The shapes with a `type` field, told apart by it. */
  const TypedToolCallSchema = z.discriminatedUnion("type", [OpenAIToolCallSchema, AnthropicToolUseSchema, ResponsesFunctionCallSchema]);

  /** Every accepted shape. Gemini's part has no `type`, so it is the union's second arm. */
  const ToolCallSchema = z.union([TypedToolCallSchema, GeminiFunctionCallPartSchema]);
  return { OpenAIToolCallSchema, AnthropicToolUseSchema, ResponsesFunctionCallSchema, GeminiFunctionCallPartSchema, TypedToolCallSchema, ToolCallSchema };
});

export type IncomingToolCall = z.infer<ReturnType<typeof toolCallSchemas>["ToolCallSchema"]>;

/** A call reduced to what the pipeline needs, remembering which shape to answer in. */
export interface NormalizedCall {
  format: "openai" | "anthropic" | "responses" | "gemini";
  id: string;
  name: string;
  arguments: unknown;
  /** A Gemini call that came without an id: `id` was made here and is not echoed back. */
  generatedId?: true;
}

export function normalizeCall(call: IncomingToolCall): NormalizedCall {
  if ("functionCall" in call) {
    const { id, name, args } = call.functionCall;
    return id === undefined
      ? { format: "gemini", id: `gemini_${crypto.randomUUID()}`, name, arguments: args ?? {}, generatedId: true }
      : { format: "gemini", id, name, arguments: args ?? {} };
  }
  switch (call.type) {
    case "function":
      return { format: "openai", id: call.id, name: call.function.name, arguments: call.function.arguments };
    case "tool_use":
      return { format: "anthropic", id: call.id, name: call.name, arguments: call.input };
    case "function_call":
      return { format: "responses", id: call.call_id, name: call.name, arguments: call.arguments };
  }
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

/** OpenAI Responses input item: append it to the next request's `input` as it is. */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/**
 * Gemini content part: put it in the next user turn's `parts` as it is. `response` is an object,
 * as Gemini requires: `{output}` with the result, or `{error}` with the error envelope.
 */
export interface GeminiFunctionResponsePart {
  functionResponse: { id?: string; name: string; response: { output: unknown } | { error: unknown } };
}

export type ResultMessage = OpenAIToolMessage | AnthropicToolResult | ResponsesFunctionCallOutput | GeminiFunctionResponsePart;

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
  message: ResultMessage;
}

/** The result of one call, with its message in the shape the call came in. */
export function toCallResult(call: NormalizedCall, outcome: CallOutcome): CallResult {
  const message = resultMessage(call, outcome);
  return {
    id: call.id,
    tool: call.name,
    status: outcome.status,
    error_code: outcome.errorCode ?? null,
    // Undefined, not spread in: JSON leaves it out all the same, and a literal of fixed shape is cheaper.
    approval: outcome.approval === undefined ? undefined : { id: outcome.approval.id, expires_at: outcome.approval.expiresAt, url: outcome.approval.url },
    duration_ms: outcome.durationMs,
    attempts: outcome.attempts,
    truncated: outcome.truncated,
    message,
  };
}

/** The provider's result message for a call, in the shape the call came in. */
function resultMessage(call: NormalizedCall, outcome: CallOutcome): ResultMessage {
  switch (call.format) {
    case "openai":
      return { role: "tool", tool_call_id: call.id, content: outcome.content };
    case "anthropic":
      return { type: "tool_result", tool_use_id: call.id, content: outcome.content, is_error: isFailedMessage(outcome) };
    case "responses":
      return { type: "function_call_output", call_id: call.id, output: outcome.content };
    case "gemini": {
      // The same text the other shapes carry, as data: Gemini's `response` is a JSON object.
      const data = parsedContent(outcome.content);
      const response = isFailedMessage(outcome) ? { error: data } : { output: data };
      return { functionResponse: call.generatedId === true ? { name: call.name, response } : { id: call.id, name: call.name, response } };
    }
  }
}

function parsedContent(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
