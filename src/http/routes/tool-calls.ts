/** `POST /v1/tool-calls`: run what the model emitted and answer in the model's shapes. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { serveCalls } from "../../batch/serve-calls.ts";
import { once } from "../../bundle/once.ts";
import type { GatewayParts } from "../../compose.ts";
import { loadConfig } from "../../config/config.ts";
import { normalizeCall, toCallResult, toolCallSchemas } from "../../formats/tool-calls.ts";
import { openScope, openToolsetScope } from "../../pipeline/request-scope.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { toolsetLookupOf } from "../access.ts";
import { readJsonBody } from "../json-body.ts";
import { keyScopeInput, SESSION_ID_PATTERN, SESSION_ID_RULE } from "../key-scope-input.ts";
import { failureResponse, invalidRequest } from "../request-failure.ts";
import { errorResponses } from "../schemas.ts";
import type { AppEnv } from "../types.ts";
import { streamResults, wantsEventStream } from "./tool-calls-stream.ts";

const TOOL_CALLS_PATH = "/v1/tool-calls";

/**
 * The route's schemas, built at first use: the route is mounted by the app a cold isolate's first
 * request builds (issue 33), and an /mcp call never needs them. The body schema is built by the
 * first /v1/tool-calls request; the OpenAPI definition only by the document.
 */
const toolCallsBody = once(() =>
  z
    .object({
      tool_calls: z.array(toolCallSchemas().ToolCallSchema).min(1).openapi({
        description:
          "Exactly what the model emitted: OpenAI Chat Completions `tool_calls` entries, OpenAI Responses `function_call` output items, Anthropic `tool_use` blocks, or Gemini parts holding a `functionCall` (mixing is allowed).",
      }),
      toolset: z.string().optional().openapi({ description: "Only tools of this toolset may run; others get PERMISSION_DENIED.", example: "research" }),
      session_id: z
        .string()
        .regex(SESSION_ID_PATTERN, SESSION_ID_RULE)
        .optional()
        .openapi({ description: "Groups calls of one conversation; generated when absent and returned." }),
      max_parallel_calls: z
        .number()
        .int()
        .min(1)
        .optional()
        .openapi({ description: "Calls to run at once; defaults to MAX_PARALLEL_CALLS, at most MAX_PARALLEL_CALLS_CAP.", example: 4 }),
    })
    .openapi("ToolCallsRequest"),
);

const postToolCalls = once(() => {
  const CallResultSchema = z
    .object({
      id: z.string(),
      tool: z.string(),
      status: z
        .enum(["ok", "error", "pending_approval"])
        .openapi({ description: "`pending_approval`: the call needs a person's approval and has not run; see `approval`." }),
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
          z.object({ type: z.literal("function_call_output"), call_id: z.string(), output: z.string() }),
          z.object({
            functionResponse: z.object({
              id: z.string().optional(),
              name: z.string(),
              response: z.union([z.object({ output: z.unknown() }), z.object({ error: z.unknown() })]),
            }),
          }),
        ])
        .openapi({
          description:
            "Append as it is, in the shape the call came in: an OpenAI tool message (to `messages`), a Responses `function_call_output` item (to `input`), an Anthropic `tool_result` block, or a Gemini `functionResponse` part (`response.output` the result, `response.error` the error envelope).",
        }),
    })
    .openapi("CallResult");

  const ToolCallsResponseSchema = z.object({ session_id: z.string(), results: z.array(CallResultSchema) }).openapi("ToolCallsResponse");

  return createRoute({
    method: "post",
    path: TOOL_CALLS_PATH,
    summary: "Run a batch of tool calls",
    description:
      "One failing call never fails the batch; each result says how its call ended. Results keep the request's order. With `Accept: text/event-stream` the results are streamed as each call finishes: a `result` event per call (`{index, id, result}`), then a `batch` event with the whole response (or, should the gateway fail mid-batch, an `error` event with the error body).",
    request: { body: { required: true, content: { "application/json": { schema: toolCallsBody() } } } },
    responses: {
      200: {
        description: "One result per call, in order.",
        content: {
          "application/json": { schema: ToolCallsResponseSchema },
          "text/event-stream": {
            schema: z.string().openapi({
              description:
                "Server-sent events: `event: result` with `{index, id, result}` (a CallResult) as each call finishes, in finishing order; then `event: batch` with the ToolCallsResponse, or `event: error` with a RequestError (INTERNAL) should the gateway fail mid-batch.",
              example:
                'event: result\ndata: {"index":1,"id":"call_2","result":{...}}\n\nevent: result\ndata: {"index":0,...}\n\nevent: batch\ndata: {"session_id":"...","results":[...]}\n\n',
            }),
          },
        },
      },
      ...errorResponses(400, 404, 413, 415),
    },
  });
});

/**
 * Adds the route to `app`, running calls on the isolate's parts (on `app` itself, as
 * meta.ts says why). Documented by its OpenAPI definition but
 * served as a plain route that reads its own body (json-body.ts says why); `documented: false`
 * leaves that definition out (route-groups.ts `documenting`), which only the document reads.
 */
export function mountToolCallsRoutes(app: OpenAPIHono<AppEnv>, parts: GatewayParts, { documented }: { documented: boolean }): void {
  if (documented) app.openAPIRegistry.registerPath(postToolCalls());
  app.post(TOOL_CALLS_PATH, async function toolCalls(c) {
    const read = await readJsonBody(c, toolCallsBody(), invalidBody);
    if (!read.ok) return read.response;
    const body = read.body;
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
    const opened =
      body.toolset === undefined ? await openScope(parts.pipeline, input) : await openToolsetScope(parts.pipeline, input, body.toolset, toolsetLookupOf(c));
    if ("unknownToolset" in opened) return failureResponse(c, { kind: "unknown_toolset", name: opened.unknownToolset });
    const calls = body.tool_calls.map(normalizeCall);
    if (wantsEventStream(c.req.header("accept")))
      return streamResults(c, sessionId, calls, (onResult) => serveCalls(calls, opened, maxParallel, parts.batch, onResult));
    const outcomes = await serveCalls(calls, opened, maxParallel, parts.batch);
    return c.json({ session_id: sessionId, results: calls.map((call, i) => toCallResult(call, outcomes[i] as CallOutcome)) }, 200);
  });
}

/**
 * The route's answer to a body its schema refused. A `tool_calls` entry that matches none of
 * the shapes is one zod union issue naming no field; the entry's own shape (a Gemini part has
 * `functionCall`, the others a `type`) decides which shape's issues name the bad fields instead.
 */
function invalidBody(bodyIssues: readonly BodyIssue[], sent: unknown, c: Context): Response {
  const sentCalls = typeof sent === "object" && sent !== null ? (sent as { tool_calls?: unknown }).tool_calls : undefined;
  const issues = bodyIssues.flatMap((issue): readonly BodyIssue[] => {
    const [field, index] = issue.path;
    if (issue.code !== "invalid_union" || field !== "tool_calls" || typeof index !== "number" || issue.path.length !== 2 || !Array.isArray(sentCalls))
      return [issue];
    const entry: unknown = sentCalls[index];
    const { GeminiFunctionCallPartSchema, TypedToolCallSchema } = toolCallSchemas();
    const shape = typeof entry === "object" && entry !== null && "functionCall" in entry ? GeminiFunctionCallPartSchema : TypedToolCallSchema;
    const parsed = shape.safeParse(entry);
    return parsed.success ? [issue] : parsed.error.issues.map((own) => ({ path: [field, index, ...own.path], message: own.message }));
  });
  return invalidRequest(c, issues);
}

interface BodyIssue {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
}
