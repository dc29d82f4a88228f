/**
 * The runs routes' OpenAPI definitions (runs-routes.ts serves them): their request bodies and
 * query schemas, and the documented responses. Kept apart from the handlers so each file stays
 * one concept, as audit-route-specs.ts does for the audit routes.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../http/schemas.ts";
import { MAX_ANSWER_CHARS } from "./run-question.ts";
import { ClientToolSchema, MessageSchema, SessionIdSchema } from "./run-request-schemas.ts";
import { RUN_STATUSES } from "./run-types.ts";
import { RunWireSchema } from "./run-wire.ts";

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

export const postRun = createRoute({
  method: "post",
  path: "/v1/runs",
  summary: "Start an agent run",
  description: "The run goes on in its own Durable Object; follow it with GET /v1/runs/{id} or /events.",
  request: { body: { required: true, content: { "application/json": { schema: RunBody } } } },
  responses: { 202: { description: "Started.", content: { "application/json": { schema: RunWireSchema } } }, ...errorResponses(400, 403, 404, 415, 503) },
});

export const getRun = createRoute({
  method: "get",
  path: "/v1/runs/{id}",
  summary: "A run: status, transcript, steps, usage",
  request: { params: IdParam },
  responses: { 200: { description: "The run with its `messages`.", content: { "application/json": { schema: RunWireSchema } } }, ...errorResponses(404) },
});

export const getEvents = createRoute({
  method: "get",
  path: "/v1/runs/{id}/events",
  summary: "The run's events as Server-Sent Events",
  description:
    "`run.started`, `model.turn`, `tool.result`, `approval.pending`, `approval.settled`, `input.pending` (the agent's question, with `choices`), `input.answered`, `run.finished`; each `id:` is the event's number. Send `Last-Event-ID` (or `?after=`) to resume. While the model writes, `delta` events carry its text as it arrives: they have no `id:` and are not stored, so a resumed stream has the whole `model.turn` instead (docs/formats.md). The stream ends after `run.finished`.",
  request: { params: IdParam, query: z.object({ after: z.coerce.number().int().min(0).optional() }) },
  responses: { 200: { description: "text/event-stream", content: { "text/event-stream": { schema: z.string() } } }, ...errorResponses(404) },
});

export const cancelRun = createRoute({
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

export const answerRun = createRoute({
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

export const listRoute = createRoute({
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
