/** `POST /v1/tool-calls`: run what the model emitted and answer in the model's shapes. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { serveCalls } from "../../batch/serve-calls.ts";
import type { GatewayParts } from "../../compose.ts";
import { openScope, openToolsetScope } from "../../pipeline/request-scope.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { AnthropicToolUseSchema, normalizeCall, OpenAIToolCallSchema, toCallResult } from "../../formats/tool-calls.ts";
import { loadConfig } from "../../config/config.ts";
import { toolsetLookupOf } from "../access.ts";
import { keyScopeInput } from "../key-scope-input.ts";
import { failureResponse } from "../request-failure.ts";
import { errorResponses } from "../schemas.ts";
import type { AppEnv } from "../types.ts";

const ToolCallsBody = z
  .object({
    tool_calls: z
      .array(z.discriminatedUnion("type", [OpenAIToolCallSchema, AnthropicToolUseSchema]))
      .min(1)
      .openapi({ description: "Exactly what the model emitted: OpenAI `tool_calls` entries or Anthropic `tool_use` blocks (mixing is allowed)." }),
    toolset: z.string().optional().openapi({ description: "Only tools of this toolset may run; others get PERMISSION_DENIED.", example: "research" }),
    session_id: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'")
      .optional()
      .openapi({ description: "Groups calls of one conversation; generated when absent and returned." }),
    max_parallel_calls: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "Calls to run at once; defaults to MAX_PARALLEL_CALLS, at most MAX_PARALLEL_CALLS_CAP.", example: 4 }),
  })
  .openapi("ToolCallsRequest");

const CallResultSchema = z
  .object({
    id: z.string(),
    tool: z.string(),
    status: z.enum(["ok", "error", "pending_approval"]).openapi({ description: "`pending_approval`: the call needs a person's approval and has not run; see `approval`." }),
    error_code: z.string().nullable(),
    approval: z
      .object({
        id: z.string(),
        expires_at: z.number().int().openapi({ description: "When the approval expires unanswered (epoch ms)." }),
        url: z.string().openapi({ description: "The approvals page where a person decides it." }),
      })
      .optional()
      .openapi({ description: "Present when status is pending_approval. GET /v1/approvals/{id}?session_id=...&wait=30 returns the outcome." }),
    duration_ms: z.number(),
    attempts: z.number().int().openapi({ description: "Handler attempts: 0 when the call failed before running, more than 1 after retries." }),
    truncated: z.boolean(),
    message: z
      .union([
        z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
        z.object({ type: z.literal("tool_result"), tool_use_id: z.string(), content: z.string(), is_error: z.boolean() }),
      ])
      .openapi({ description: "Append as it is: an OpenAI tool message, or an Anthropic tool_result block." }),
  })
  .openapi("CallResult");

const postToolCalls = createRoute({
  method: "post",
  path: "/v1/tool-calls",
  summary: "Run a batch of tool calls",
  description: "One failing call never fails the batch; each result says how its call ended. Results keep the request's order.",
  request: { body: { required: true, content: { "application/json": { schema: ToolCallsBody } } } },
  responses: {
    200: {
      description: "One result per call, in order.",
      content: { "application/json": { schema: z.object({ session_id: z.string(), results: z.array(CallResultSchema) }).openapi("ToolCallsResponse") } },
    },
    ...errorResponses(400, 404, 413, 415),
  },
});

/** The route, running calls on the isolate's parts. */
export const toolCallsRoutes = (parts: GatewayParts) => {
  return new OpenAPIHono<AppEnv>().openapi(postToolCalls, async (c) => {
    const body = c.req.valid("json");
    const config = loadConfig(c.env);
    if (body.tool_calls.length > config.maxToolCalls) {
      return failureResponse(c, { kind: "too_many_calls", count: body.tool_calls.length, limit: config.maxToolCalls });
    }
    const maxParallel = body.max_parallel_calls ?? config.maxParallelCalls;
    if (maxParallel > config.maxParallelCallsCap) {
      return failureResponse(c, {
        kind: "invalid_request",
        issues: [{ path: "max_parallel_calls", message: `at most ${config.maxParallelCallsCap} (MAX_PARALLEL_CALLS_CAP), got ${maxParallel}` }],
      });
    }
    const sessionId = body.session_id ?? crypto.randomUUID();
    const input = keyScopeInput(c, config, sessionId);
    const opened = body.toolset === undefined ? await openScope(parts.pipeline, input) : await openToolsetScope(parts.pipeline, input, body.toolset, toolsetLookupOf(c));
    if ("unknownToolset" in opened) return failureResponse(c, { kind: "unknown_toolset", name: opened.unknownToolset });
    const calls = body.tool_calls.map(normalizeCall);
    const outcomes = await serveCalls(calls, opened, maxParallel, parts.batch);
    return c.json({ session_id: sessionId, results: calls.map((call, i) => toCallResult(call, outcomes[i] as CallOutcome)) }, 200);
  });
};
