/**
 * The durable agent runs API: POST /v1/runs (202 with the id), GET /v1/runs/{id},
 * GET /v1/runs/{id}/events (Server-Sent Events, resumable with Last-Event-ID),
 * POST /v1/runs/{id}/cancel, POST /v1/runs/{id}/answer (the agent's question), GET /v1/runs?status=&session_id=. A run is visible to the key that
 * started it and to admins; to any other key it does not exist.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toolsetLookupOf } from "../http/access.ts";
import { failureResponse } from "../http/request-failure.ts";
import { requestOrigin } from "../http/request-origin.ts";
import { errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { mapEvents, SSE_HEADERS, sseOf } from "./event-lines.ts";
import { keyUsage, listRuns } from "./run-index.ts";
import type { RunSnapshot } from "./run-object.ts";
import { type AnswerRefusal, MAX_ANSWER_CHARS } from "./run-question.ts";
import { runStub } from "./run-stub.ts";
import { type ClientTool, type Message, RUN_STATUSES, type RunRecord } from "./run-types.ts";
import { RunWireSchema, toWireRun } from "./run-wire.ts";
import { ClientToolSchema, MessageSchema, SessionIdSchema, startRun } from "./start-run.ts";

const RunBody = z
  .object({
    messages: z.array(MessageSchema).min(1).optional().openapi({ description: "The conversation so far, OpenAI chat messages. Give `messages` or `input`." }),
    input: z.string().min(1).optional().openapi({ description: "A single user message (instead of `messages`).", example: "What time is it in Tokyo?" }),
    toolset: z.string().optional().openapi({ description: "Only this toolset's tools (within the key's own) are offered and may run." }),
    model: z.string().optional().openapi({ description: "A configured model's name (MODELS); the default model when absent." }),
    max_turns: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "Model turns before the run stops with `limit_reached`; default and ceiling RUN_MAX_TURNS (20)." }),
    max_tool_calls: z.number().int().min(1).optional(),
    token_budget: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "Total tokens (as the upstream reports them) before the run stops with `limit_reached`." }),
    session_id: SessionIdSchema.optional(),
    tools: z
      .array(ClientToolSchema)
      .optional()
      .openapi({ description: "Tools the client runs itself: a call of one ends the run with `finish_reason: tool_calls`." }),
  })
  .openapi("RunRequest");

const IdParam = z.object({ id: z.string().min(1).max(64) });

const postRun = createRoute({
  method: "post",
  path: "/v1/runs",
  summary: "Start an agent run",
  description: "The run goes on in its own Durable Object; follow it with GET /v1/runs/{id} or /events.",
  request: { body: { required: true, content: { "application/json": { schema: RunBody } } } },
  responses: { 202: { description: "Started.", content: { "application/json": { schema: RunWireSchema } } }, ...errorResponses(400, 403, 404, 415, 503) },
});

const getRun = createRoute({
  method: "get",
  path: "/v1/runs/{id}",
  summary: "A run: status, transcript, steps, usage",
  request: { params: IdParam },
  responses: { 200: { description: "The run with its `messages`.", content: { "application/json": { schema: RunWireSchema } } }, ...errorResponses(404) },
});

const getEvents = createRoute({
  method: "get",
  path: "/v1/runs/{id}/events",
  summary: "The run's events as Server-Sent Events",
  description:
    "`run.started`, `model.turn`, `tool.result`, `approval.pending`, `approval.settled`, `input.pending` (the agent's question, with `choices`), `input.answered`, `run.finished`; each `id:` is the event's number. Send `Last-Event-ID` (or `?after=`) to resume. While the model writes, `delta` events carry its text as it arrives: they have no `id:` and are not stored, so a resumed stream has the whole `model.turn` instead (docs/formats.md). The stream ends after `run.finished`.",
  request: { params: IdParam, query: z.object({ after: z.coerce.number().int().min(0).optional() }) },
  responses: { 200: { description: "text/event-stream", content: { "text/event-stream": { schema: z.string() } } }, ...errorResponses(404) },
});

const cancelRun = createRoute({
  method: "post",
  path: "/v1/runs/{id}/cancel",
  summary: "Cancel a run",
  request: { params: IdParam },
  responses: {
    200: { description: "The run, `cancelled` unless it had already ended.", content: { "application/json": { schema: RunWireSchema } } },
    ...errorResponses(404),
  },
});

const AnswerBody = z
  .object({
    answer: z
      .string()
      .trim()
      .min(1)
      .max(MAX_ANSWER_CHARS)
      .openapi({ description: "The person's answer: one of the question's `choices`, or their own words.", example: "Use the staging database." }),
    question_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: "The question's `id` (GET /v1/runs/{id}): when given, an answer meant for an earlier question is refused (409)." }),
  })
  .openapi("RunAnswer");

const answerRun = createRoute({
  method: "post",
  path: "/v1/runs/{id}/answer",
  summary: "Answer the agent's question",
  description:
    "A run `awaiting_input` waits on the question its agent asked (clarify). The answer becomes the question's result and the run goes on, as after an approval. Only the key that started the run may answer (an admin gets 403); a run that is not waiting gets 409.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: AnswerBody } } } },
  responses: {
    200: { description: "The run, `running` again.", content: { "application/json": { schema: RunWireSchema } } },
    ...errorResponses(400, 403, 404, 409, 415),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/runs",
  summary: "Runs, newest first, with the key's token usage",
  request: {
    query: z.object({
      status: z.enum(RUN_STATUSES).optional(),
      session_id: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
  },
  responses: {
    200: {
      description: "The runs this key may see (an admin: all).",
      content: {
        "application/json": {
          schema: z.object({
            runs: z.array(
              z.object({
                id: z.string(),
                status: z.enum(RUN_STATUSES),
                session_id: z.string(),
                parent_run_id: z.string().nullable(),
                key_id: z.string(),
                model: z.string(),
                turns: z.number().int(),
                tool_calls: z.number().int(),
                total_tokens: z.number().int(),
                created_at: z.string(),
                updated_at: z.string(),
              }),
            ),
            usage: z
              .object({ runs: z.number().int(), prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() })
              .openapi({ description: "The calling key's runs and tokens over all time." }),
          }),
        },
      },
    },
    ...errorResponses(400),
  },
});

/** The run, if this key may see it. */
async function visibleRun(c: Context<AppEnv>, id: string): Promise<RunSnapshot | undefined> {
  // The RPC types of a transcript (OpenAI's message unions) are too deep for Rpc.Serializable.
  const snapshot = (await runStub(c.env, id).snapshot()) as RunSnapshot | undefined;
  if (snapshot === undefined) return undefined;
  const principal = c.get("principal");
  return principal.role === "admin" || snapshot.record.keyId === principal.keyId ? snapshot : undefined;
}

export const runsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(postRun, async (c) => {
    const body = c.req.valid("json");
    const messages = body.messages ?? (body.input === undefined ? undefined : [{ role: "user" as const, content: body.input }]);
    if (messages === undefined) return failureResponse(c, { kind: "invalid_request", issues: [{ path: "messages", message: "give `messages` or `input`" }] });
    const started = await startRun(
      c.env,
      {
        // MessageSchema and ClientToolSchema check only what toolgate reads; the rest is the model endpoint's to judge, so the OpenAI types are asserted.
        messages: messages as Message[],
        tools: (body.tools ?? []) as ClientTool[],
        toolset: body.toolset,
        model: body.model,
        maxTurns: body.max_turns,
        maxToolCalls: body.max_tool_calls,
        tokenBudget: body.token_budget,
        sessionId: body.session_id,
      },
      { keyId: c.get("principal").keyId, origin: requestOrigin(c.req.url), lookup: toolsetLookupOf(c) },
    );
    if (!started.ok) return failureResponse(c, started.failure);
    return c.json(toWireRun(started.record), 202);
  })
  .openapi(getRun, async (c) => {
    const { id } = c.req.valid("param");
    const found = await visibleRun(c, id);
    if (found === undefined) return failureResponse(c, { kind: "unknown_run", id });
    return c.json(toWireRun(found.record, found.messages), 200);
  })
  .openapi(getEvents, async (c) => {
    const { id } = c.req.valid("param");
    const found = await visibleRun(c, id);
    if (found === undefined) return failureResponse(c, { kind: "unknown_run", id });
    const lastEventId = Number(c.req.header("last-event-id") ?? Number.NaN);
    const after = Number.isInteger(lastEventId) && lastEventId >= 0 ? lastEventId : (c.req.valid("query").after ?? 0);
    const stream = await runStub(c.env, id).events(after);
    return new Response(mapEvents(stream as ReadableStream<Uint8Array>, sseOf), { status: 200, headers: SSE_HEADERS }) as never;
  })
  .openapi(cancelRun, async (c) => {
    const { id } = c.req.valid("param");
    const found = await visibleRun(c, id);
    if (found === undefined) return failureResponse(c, { kind: "unknown_run", id });
    const record = (await runStub(c.env, id).cancel()) as RunRecord | undefined;
    return c.json(toWireRun(record ?? found.record), 200);
  })
  .openapi(answerRun, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const found = await visibleRun(c, id);
    if (found === undefined) return failureResponse(c, { kind: "unknown_run", id });
    const stub = runStub(c.env, id);
    const refusal = (await stub.answer(c.get("principal").keyId, body.answer, body.question_id)) as AnswerRefusal | undefined;
    switch (refusal?.kind) {
      case undefined:
        break;
      case "no_run":
        return failureResponse(c, { kind: "unknown_run", id });
      case "not_owner":
        return failureResponse(c, { kind: "run_not_yours", runId: id });
      case "no_question":
        return failureResponse(c, { kind: "no_question", runId: id, status: refusal.status });
      case "stale":
        return failureResponse(c, { kind: "no_question", runId: id, status: "awaiting_input", questionId: refusal.callId });
    }
    const snapshot = (await stub.snapshot()) as RunSnapshot | undefined;
    return c.json(toWireRun(snapshot?.record ?? found.record), 200);
  })
  .openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const principal = c.get("principal");
    const rows = await listRuns(c.env.DB, {
      keyId: principal.role === "admin" ? undefined : principal.keyId,
      status: query.status,
      sessionId: query.session_id,
      limit: query.limit,
    });
    return c.json(
      {
        runs: rows.map((r) => ({
          id: r.id,
          status: r.status,
          session_id: r.session_id,
          parent_run_id: r.parent_run_id,
          key_id: r.key_id,
          model: r.model,
          turns: r.turns,
          tool_calls: r.tool_calls,
          total_tokens: r.total_tokens,
          created_at: new Date(r.created_at).toISOString(),
          updated_at: new Date(r.updated_at).toISOString(),
        })),
        usage: await keyUsage(c.env.DB, principal.keyId),
      },
      200,
    );
  });
