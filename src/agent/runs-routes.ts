/**
 * The durable agent runs API: POST /v1/runs (202 with the id), GET /v1/runs/{id},
 * GET /v1/runs/{id}/events (Server-Sent Events, resumable with Last-Event-ID),
 * POST /v1/runs/{id}/cancel, POST /v1/runs/{id}/answer (the agent's question), GET /v1/runs?status=&session_id=. A run is visible to the key that
 * started it and to admins; to any other key it does not exist.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toolsetLookupOf } from "../http/access.ts";
import { failureResponse } from "../http/request-failure.ts";
import { requestOrigin } from "../http/request-origin.ts";
import type { AppEnv } from "../http/types.ts";
import { mapEvents, SSE_HEADERS, sseOf } from "./event-lines.ts";
import { keyUsage, listRuns } from "./run-index.ts";
import type { RunSnapshot } from "./run-object.ts";
import type { AnswerRefusal } from "./run-question.ts";
import { runStub } from "./run-stub.ts";
import type { ClientTool, Message, RunRecord } from "./run-types.ts";
import { toWireRun } from "./run-wire.ts";
import { answerRun, cancelRun, getEvents, getRun, listRoute, postRun } from "./runs-route-specs.ts";
import { startRun } from "./start-run.ts";

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
