/**
 * One step of a run: one model turn and the calls it made. Its calls are stored as in flight
 * before any of them runs, in the same write as the model's turn (run-object.ts says why).
 */

import type { CallOutcome } from "../pipeline/types.ts";
import { resolveModel } from "./model-config.ts";
import { setFallbackAlarm } from "./run-approval-wait.ts";
import type { RunHost } from "./run-host.ts";
import { writeRunIndex } from "./run-index.ts";
import { questionOf, SECOND_QUESTION_CONTENT } from "./run-question.ts";
import { runSettings } from "./run-settings.ts";
import { isTerminal, type Message, type PendingQuestion, type RunEvent, type RunRecord } from "./run-types.ts";
import { callInputOf, nameOf, pendingOf, splitCalls, stepCallOf } from "./step-calls.ts";

/** One model turn and its calls. */
export async function runStep(host: RunHost, start: RunRecord): Promise<void> {
  const { env, store, events } = host;
  let record = start;
  const settings = runSettings(env);
  const limit = limitReached(record);
  if (limit !== undefined) return void (await host.finish(record, "limit_reached", { error: limit }));

  const model = resolveModel(env, record.model.name, record.keyId);
  if ("kind" in model)
    return void (await host.finish(record, "failed", {
      error: { code: "MODEL_NOT_CONFIGURED", message: `The run's model '${record.model.name}' is not usable now (${model.kind}).` },
    }));
  const opened = await host.open(record);
  if (!opened.ok) return void (await host.finish(record, "failed", { error: { code: "PERMISSION_DENIED", message: opened.message } }));
  const { scope, tools } = opened;

  // Imported at the first turn, not at start-up: the model client brings the `openai` package,
  // which every cold isolate would otherwise evaluate whatever it serves (issue 33).
  const { callModel } = await import("./model-client.ts");
  const modelStarted = Date.now();
  const answer = await callModel(
    model,
    { messages: store.messageTexts(), tools },
    {
      deadlineAt: record.limits.deadlineAt,
      timeoutMs: settings.modelTimeoutMs,
      attempts: settings.modelAttempts,
      backoffMs: settings.modelBackoffMs,
      stream: record.streamTurns !== false,
      // Live only: the step stores the whole message once the stream ends (docs/formats.md).
      onDelta: (content) => events.delta(record.turns + 1, content),
    },
  );
  // No await from here to the turn's stored event: a reader joins either before (and gets the text so far) or after.
  events.endTurn();
  const modelMs = Date.now() - modelStarted;
  // Re-read: a cancel may have landed while the model was asked.
  record = store.record() ?? record;
  if (isTerminal(record.status)) return;
  if (!answer.ok)
    return void (await host.finish(record, "failed", { error: { code: answer.code, message: `${answer.message} (after ${answer.attempts} attempt(s))` } }));

  const turn = record.turns + 1;
  const usage =
    answer.usage === undefined
      ? record.usage
      : {
          promptTokens: record.usage.promptTokens + answer.usage.promptTokens,
          completionTokens: record.usage.completionTokens + answer.usage.completionTokens,
          totalTokens: record.usage.totalTokens + answer.usage.totalTokens,
        };
  const toolCalls = answer.message.tool_calls ?? [];
  const assistant: Message = { role: "assistant", content: answer.message.content ?? null, ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }) };
  const { own, client } = splitCalls(toolCalls, record.clientTools);
  const step = {
    turn,
    model_ms: modelMs,
    tools_ms: 0,
    finish_reason: answer.finishReason,
    calls: client.map((call) => ({ id: call.id, tool: nameOf(call), status: "client" as const, error_code: null, duration_ms: 0 })),
  };
  record = { ...record, turns: turn, usage, updatedAt: Date.now(), steps: [...record.steps, step] };
  store.appendMessages([assistant]);
  events.emit("model.turn", { turn, content: assistant.content, tool_calls: toolCalls, finish_reason: answer.finishReason, usage: answer.usage ?? null });

  if (own.length === 0) {
    const fields =
      client.length === 0
        ? { answer: typeof assistant.content === "string" ? assistant.content : "", finishReason: answer.finishReason }
        : { clientToolCalls: client, finishReason: "tool_calls" };
    return void (await host.finish(record, "completed", fields));
  }
  if (record.toolCalls + own.length > record.limits.maxToolCalls) {
    return void (await host.finish(record, "limit_reached", {
      error: { code: "MAX_TOOL_CALLS", message: `The run may make ${record.limits.maxToolCalls} tool calls; this turn's ${own.length} would pass it.` },
    }));
  }
  // Stored before any call runs: what a restart finds still in flight was cut short.
  record = { ...record, toolCalls: record.toolCalls + own.length, inflight: own.map((call) => ({ id: call.id, tool: nameOf(call) })) };
  store.save(record);

  const toolsStarted = Date.now();
  const outcomes = await host.serve(own.map(callInputOf), scope);
  const after = store.record() ?? record;
  const pending = outcomes.flatMap((outcome) => pendingOf(outcome) ?? []);
  const asked = askedQuestions(outcomes);
  const question = asked.first;
  const calls = outcomes.map((outcome) =>
    outcome.callId === question?.callId ? { ...stepCallOf(outcome), status: "awaiting_input" as const } : stepCallOf(outcome),
  );
  const held = outcomes.map((outcome) => ({
    callId: outcome.callId,
    content:
      outcome.status === "pending_approval" || outcome.callId === question?.callId
        ? null
        : asked.refused.has(outcome.callId)
          ? SECOND_QUESTION_CONTENT
          : outcome.content,
  }));
  const steps = after.steps.map((s) => (s.turn === turn ? { ...s, tools_ms: Date.now() - toolsStarted, calls: [...calls, ...s.calls] } : s));
  record = { ...after, inflight: [], steps, pending, held, question, clientToolCalls: client, updatedAt: Date.now() };
  events.emitAll(
    outcomes.flatMap((outcome, i): Pick<RunEvent, "type" | "data">[] => {
      const call = calls[i];
      // The question's event comes when the run pauses on it (run-question.ts), after any approval of this step.
      if (call === undefined || call.status === "awaiting_input") return [];
      if (outcome.status === "pending_approval")
        return [{ type: "approval.pending", data: { call_id: call.id, tool: call.tool, approval: call.approval ?? null } }];
      const content = asked.refused.has(call.id) ? SECOND_QUESTION_CONTENT : outcome.content;
      return [{ type: "tool.result", data: { ...call, content } }];
    }),
  );
  if (isTerminal(after.status)) return void store.save(record);
  if (pending.length > 0) {
    record = { ...record, status: "awaiting_approval" };
    store.save(record);
    await setFallbackAlarm(host, record);
    await writeRunIndex(env.DB, record);
    return;
  }
  await host.release(record);
}

/** The step's first question (clarify inside a run), and the calls of any later ones, which are refused. */
function askedQuestions(outcomes: readonly CallOutcome[]): { first: PendingQuestion | undefined; refused: ReadonlySet<string> } {
  const now = Date.now();
  const questions = outcomes.flatMap((outcome) => questionOf(outcome, now) ?? []);
  return { first: questions[0], refused: new Set(questions.slice(1).map((q) => q.callId)) };
}

function limitReached(record: RunRecord): { code: string; message: string } | undefined {
  if (Date.now() >= record.limits.deadlineAt)
    return { code: "RUN_DEADLINE", message: `The run's deadline (${new Date(record.limits.deadlineAt).toISOString()}) passed.` };
  if (record.turns >= record.limits.maxTurns)
    return { code: "MAX_TURNS", message: `The model took ${record.turns} turns without a final answer (max_turns ${record.limits.maxTurns}).` };
  const budget = record.limits.tokenBudget;
  if (budget !== undefined && record.usage.totalTokens >= budget)
    return { code: "TOKEN_BUDGET", message: `The run used ${record.usage.totalTokens} tokens; its budget is ${budget}.` };
  return undefined;
}
