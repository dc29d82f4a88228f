/**
 * A run waiting on its own principal's answer (the `clarify` tool, tools/clarify.ts): the tool
 * inside a run only returns its question; the step holds the call's tool message back, and once
 * no approval of the step waits either, the run pauses `awaiting_input`. The answer (POST
 * /v1/runs/{id}/answer, the chat page's form) becomes the call's result and the run goes on,
 * as a settled approval does. Nobody answering ends the run at its deadline, by its alarm.
 */
import type { CallOutcome } from "../pipeline/types.ts";
import type { RunHost } from "./run-host.ts";
import { writeRunIndex } from "./run-index.ts";
import type { PendingQuestion, RunRecord } from "./run-types.ts";

/** The tool whose result inside a run is a question for the person (tools/clarify.ts names it literally, for the generator). */
export const CLARIFY_TOOL = "clarify";

/** What clarify returns inside a run: the step recognises it by this status and the tool's name. */
export const AWAITING_INPUT = "awaiting_input";

/** The longest answer kept (a person's free text; the chat form and the API both cap it). */
export const MAX_ANSWER_CHARS = 4_000;

/** The question a call's outcome asks, if it is clarify's, inside a run. */
export function questionOf(outcome: CallOutcome, askedAt: number): PendingQuestion | undefined {
  if (outcome.tool !== CLARIFY_TOOL || outcome.status !== "ok") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.content);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { status, question, choices } = parsed as { status?: unknown; question?: unknown; choices?: unknown };
  if (status !== AWAITING_INPUT || typeof question !== "string") return undefined;
  const offered = Array.isArray(choices) ? choices.filter((c): c is string => typeof c === "string") : [];
  return { callId: outcome.callId, question, choices: offered, askedAt };
}

/** The tool message a second question of the same step gets: one question waits at a time. */
export const SECOND_QUESTION_CONTENT = JSON.stringify({
  error: "Only one question can wait for the person at a time; this one was not asked. Ask it again once the first is answered.",
  error_code: "QUESTION_PENDING",
});

/** The clarify call's result once answered, in Hermes's shape. */
export function answerContent(question: PendingQuestion, answer: string): string {
  return JSON.stringify({ question: question.question, choices_offered: question.choices, user_response: answer });
}

/** Pauses the run on its question: `awaiting_input`, the event readers see, the alarm at the deadline. */
export async function awaitInput(host: RunHost, record: RunRecord, question: PendingQuestion): Promise<void> {
  const next: RunRecord = { ...record, status: "awaiting_input", question, updatedAt: Date.now() };
  host.store.save(next);
  host.events.emit("input.pending", {
    run_id: record.id,
    call_id: question.callId,
    question: question.question,
    choices: question.choices,
    deadline_at: record.limits.deadlineAt,
  });
  await host.storage.setAlarm(record.limits.deadlineAt);
  await writeRunIndex(host.env.DB, next);
}

/** Why an answer was not taken. */
export type AnswerRefusal = { kind: "no_run" } | { kind: "not_owner" } | { kind: "no_question"; status: string } | { kind: "stale"; callId: string };

/**
 * Takes `keyId`'s answer: only the run's own principal may answer, and only the question that
 * waits (`callId`, when given, must name it, so an answer to an earlier question cannot land on
 * a later one). The answer is the held call's result, and the run goes on.
 */
export async function takeAnswer(
  host: RunHost,
  record: RunRecord,
  answer: { keyId: string; text: string; callId: string | undefined },
): Promise<AnswerRefusal | undefined> {
  if (record.keyId !== answer.keyId) return { kind: "not_owner" };
  const question = record.question;
  if (record.status !== "awaiting_input" || question === undefined) return { kind: "no_question", status: record.status };
  if (answer.callId !== undefined && answer.callId !== question.callId) return { kind: "stale", callId: question.callId };
  const content = answerContent(question, answer.text.slice(0, MAX_ANSWER_CHARS));
  host.events.emit("input.answered", { call_id: question.callId, answer: answer.text.slice(0, MAX_ANSWER_CHARS) });
  const held = record.held.map((h) => (h.callId === question.callId ? { ...h, content } : h));
  await host.storage.deleteAlarm();
  await host.release({ ...record, held, question: undefined, updatedAt: Date.now() });
  return undefined;
}

/** The alarm of a run waiting on its question: at the deadline it ends, saying nobody answered. */
export async function expireQuestion(host: RunHost, record: RunRecord): Promise<void> {
  if (Date.now() < record.limits.deadlineAt) return void (await host.storage.setAlarm(record.limits.deadlineAt));
  await host.finish(record, "limit_reached", {
    error: {
      code: "QUESTION_UNANSWERED",
      message: `Nobody answered the agent's question ("${record.question?.question.slice(0, 200) ?? ""}") before the run's deadline (${new Date(record.limits.deadlineAt).toISOString()}).`,
    },
  });
}
