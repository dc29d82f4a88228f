/** Runs as the API shows them (snake_case, as every toolgate response), for replies and OpenAPI. */
import { z } from "@hono/zod-openapi";
import { type Message, RUN_STATUSES, type RunRecord } from "./run-types.ts";

const UsageSchema = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });

export const RunWireSchema = z
  .object({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    session_id: z.string(),
    parent_run_id: z.string().nullable(),
    hook: z
      .object({ name: z.string(), delivery_id: z.string() })
      .nullable()
      .openapi({ description: "The webhook delivery that started the run (`GET /v1/hooks/deliveries/{id}`), or null." }),
    model: z.string(),
    toolset: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    turns: z.number().int(),
    tool_calls: z.number().int(),
    limits: z.object({ max_turns: z.number().int(), max_tool_calls: z.number().int(), deadline_at: z.string(), token_budget: z.number().int().nullable() }),
    usage: UsageSchema.openapi({ description: "Tokens the upstream reported over the run's turns (0 when it reports none)." }),
    steps: z.array(z.unknown()).openapi({
      description:
        "One entry per model turn: `turn`, `model_ms`, `tools_ms`, `finish_reason` and its `calls` (`id`, `tool`, `status`, `error_code`, `duration_ms`, `approval`).",
    }),
    pending_approvals: z.array(z.object({ call_id: z.string(), tool: z.string(), approval_id: z.string(), expires_at: z.number().int(), url: z.string() })),
    question: z
      .object({ id: z.string(), question: z.string(), choices: z.array(z.string()), asked_at: z.string(), deadline_at: z.string() })
      .nullable()
      .openapi({
        description:
          "The agent's question (clarify) while the run is `awaiting_input`: answer it with POST /v1/runs/{id}/answer (`question_id` is `id`) before `deadline_at`.",
      }),
    answer: z.string().nullable().openapi({ description: "The final answer, once completed." }),
    finish_reason: z.string().nullable(),
    client_tool_calls: z
      .array(z.unknown())
      .openapi({ description: "Calls of tools the client declared, returned to it unexecuted (`finish_reason: tool_calls`)." }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    messages: z.array(z.unknown()).optional().openapi({ description: "The transcript (GET /v1/runs/{id} only)." }),
  })
  .openapi("Run");

export type RunWire = z.infer<typeof RunWireSchema>;

export function toWireRun(r: RunRecord, messages?: readonly Message[]): RunWire {
  return {
    id: r.id,
    status: r.status,
    session_id: r.sessionId,
    parent_run_id: r.parentRunId ?? null,
    hook: r.hook === undefined ? null : { name: r.hook.name, delivery_id: r.hook.deliveryId },
    model: r.model.name,
    toolset: r.toolset ?? null,
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
    turns: r.turns,
    tool_calls: r.toolCalls,
    limits: {
      max_turns: r.limits.maxTurns,
      max_tool_calls: r.limits.maxToolCalls,
      deadline_at: new Date(r.limits.deadlineAt).toISOString(),
      token_budget: r.limits.tokenBudget ?? null,
    },
    usage: { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens, total_tokens: r.usage.totalTokens },
    steps: r.steps,
    pending_approvals: r.pending.map((p) => ({ call_id: p.callId, tool: p.tool, approval_id: p.approvalId, expires_at: p.expiresAt, url: p.url })),
    question:
      r.question === undefined
        ? null
        : {
            id: r.question.callId,
            question: r.question.question,
            choices: r.question.choices,
            asked_at: new Date(r.question.askedAt).toISOString(),
            deadline_at: new Date(r.limits.deadlineAt).toISOString(),
          },
    answer: r.answer,
    finish_reason: r.finishReason,
    client_tool_calls: r.clientToolCalls,
    error: r.error,
    ...(messages === undefined ? {} : { messages: [...messages] }),
  };
}
