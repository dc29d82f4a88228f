/**
 * POST /v1/chat/completions, OpenAI-compatible: a standard chat completion request (plus
 * toolgate's `toolset`, `session_id`, `max_turns`) becomes an agent run with the key's tools;
 * the answer is an ordinary `chat.completion`, or with `stream: true` ordinary chunks, so any
 * OpenAI SDK works unchanged. A call waiting on approval ends the response with a note saying
 * where to decide it, and the agent's question (clarify) ends it with the question as the
 * assistant's message (`toolgate.question` says where to answer); the run goes on durably and
 * its id is in `toolgate.run_id`. A client
 * that hangs up mid-stream leaves the run running.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { toolsetLookupOf } from "../http/access.ts";
import { failureResponse } from "../http/request-failure.ts";
import { requestOrigin } from "../http/request-origin.ts";
import { errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { chunkWriter, toChatCompletion } from "./chat-completion-wire.ts";
import { mapEvents, SSE_HEADERS } from "./event-lines.ts";
import { ClientToolSchema, MessageSchema, SessionIdSchema } from "./run-request-schemas.ts";
import { runStub } from "./run-stub.ts";
import type { ClientTool, Message, RunRecord } from "./run-types.ts";
import { startRun } from "./start-run.ts";

/** How long a non-streaming request waits for the run before answering with its state. */
const WAIT_MS = 600_000;

const ChatBody = z
  .looseObject({
    model: z.string().optional().openapi({ description: "`default`, MODEL_NAME, or a name from MODELS." }),
    messages: z.array(MessageSchema).min(1),
    tools: z.array(ClientToolSchema).optional().openapi({ description: "The client's own tools: their calls are returned as `tool_calls`, unexecuted." }),
    stream: z.boolean().optional(),
    toolset: z.string().optional(),
    session_id: SessionIdSchema.optional(),
    max_turns: z.number().int().min(1).optional(),
  })
  .openapi("ChatCompletionRequest");

const postChat = createRoute({
  method: "post",
  path: "/v1/chat/completions",
  summary: "OpenAI-compatible chat completion, with toolgate running its tools",
  description:
    "The answer carries `toolgate`: the run id, status and steps. With `stream: true`, Server-Sent Events of `chat.completion.chunk`s; tool steps are chunks with empty `choices` and a `toolgate` field.",
  request: { body: { required: true, content: { "application/json": { schema: ChatBody } } } },
  responses: {
    200: {
      description: "A `chat.completion` (or its stream).",
      content: {
        "application/json": { schema: z.looseObject({ id: z.string(), object: z.string(), choices: z.array(z.unknown()) }).openapi("ChatCompletion") },
      },
    },
    ...errorResponses(400, 403, 404, 415, 502, 503),
  },
});

export const chatCompletionsRoutes = new OpenAPIHono<AppEnv>().openapi(postChat, async (c) => {
  const body = c.req.valid("json");
  const started = await startRun(
    c.env,
    {
      // MessageSchema and ClientToolSchema check only what toolgate reads; the rest is the model endpoint's to judge, so the OpenAI types are asserted.
      messages: body.messages as Message[],
      tools: (body.tools ?? []) as ClientTool[],
      toolset: body.toolset,
      model: body.model,
      maxTurns: body.max_turns,
      maxToolCalls: undefined,
      tokenBudget: undefined,
      sessionId: body.session_id,
      stream: body.stream === true,
    },
    { keyId: c.get("principal").keyId, origin: requestOrigin(c.req.url), lookup: toolsetLookupOf(c) },
  );
  if (!started.ok) return failureResponse(c, started.failure);
  const { record } = started;
  const created = Math.floor(record.createdAt / 1000);
  const stub = runStub(c.env, record.id);
  if (body.stream === true) {
    const base = { id: `chatcmpl-${record.id}`, created, model: record.model.model };
    const events = (await stub.events(0, true)) as ReadableStream<Uint8Array>;
    return new Response(mapEvents(events, chunkWriter(base)), { status: 200, headers: SSE_HEADERS }) as never;
  }
  const settled = ((await stub.wait(WAIT_MS)) as RunRecord | undefined) ?? record;
  if (settled.status === "failed" || settled.status === "cancelled") {
    return failureResponse(c, {
      kind: "run_failed",
      runId: settled.id,
      code: settled.error?.code ?? "RUN_FAILED",
      message: settled.error?.message ?? `The run ended ${settled.status}.`,
    });
  }
  return c.json(toChatCompletion(settled, created), 200);
});
