/**
 * A run as an OpenAI chat completion: the whole answer (`chat.completion`), or the chunks of a
 * stream (`chat.completion.chunk`). Tool steps travel as chunks with empty `choices` and a
 * `toolgate` field: OpenAI's own streams send such chunks (usage), so SDK clients read past them.
 */
import { isTerminal, type RunEvent, type RunRecord } from "./run-types.ts";

/** What the answer says when a call waits on a person: the run goes on without the client. */
export function awaitingText(record: Pick<RunRecord, "id" | "pending">): string {
  const approvals = record.pending.map((p) => `'${p.tool}' (approval ${p.approvalId}, decide at ${p.url})`).join(", ");
  return `A tool call is waiting for a person's approval: ${approvals}. The run ${record.id} continues by itself once it is decided; follow it with GET /v1/runs/${record.id}.`;
}

/**
 * The agent's question as the assistant's message: the question, then its choices numbered. How
 * to answer (POST /v1/runs/{id}/answer) travels in `toolgate.question`, not in the message the
 * person reads.
 */
export function questionText(question: { question: string; choices: readonly string[] }): string {
  if (question.choices.length === 0) return question.question;
  return `${question.question}\n\n${question.choices.map((choice, i) => `${i + 1}. ${choice}`).join("\n")}`;
}

/** The toolgate extension of a completion: the run, its status and steps. */
export function toolgateField(record: RunRecord) {
  return {
    run_id: record.id,
    status: record.status,
    session_id: record.sessionId,
    steps: record.steps,
    pending_approvals: record.pending.map((p) => ({ call_id: p.callId, tool: p.tool, approval_id: p.approvalId, expires_at: p.expiresAt, url: p.url })),
    question:
      record.question === undefined
        ? null
        : { id: record.question.callId, question: record.question.question, choices: record.question.choices, answer_path: `/v1/runs/${record.id}/answer` },
    error: record.error,
  };
}

const finishReasonOf = (record: RunRecord): string =>
  record.status === "limit_reached" ? "length" : record.clientToolCalls.length > 0 ? "tool_calls" : "stop";

/** A non-streaming answer from the run as it is now. */
export function toChatCompletion(record: RunRecord, created: number) {
  const content =
    record.status === "awaiting_approval"
      ? awaitingText(record)
      : record.status === "awaiting_input" && record.question !== undefined
        ? questionText(record.question)
        : !isTerminal(record.status)
          ? `The run ${record.id} is still working; follow it with GET /v1/runs/${record.id}.`
          : record.answer;
  return {
    id: `chatcmpl-${record.id}`,
    object: "chat.completion" as const,
    created,
    model: record.model.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant" as const, content, refusal: null, ...(record.clientToolCalls.length === 0 ? {} : { tool_calls: record.clientToolCalls }) },
        finish_reason: finishReasonOf(record),
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: record.usage.promptTokens, completion_tokens: record.usage.completionTokens, total_tokens: record.usage.totalTokens },
    toolgate: toolgateField(record),
  };
}

/**
 * Turns run events into the SSE text of chunks, for one stream: it remembers the text of the
 * turn it has streamed, so a final answer whose first pieces went by before this reader joined
 * is completed from its `model.turn`, and nothing is sent twice.
 */
export function chunkWriter(base: { id: string; created: number; model: string }): (event: RunEvent) => string {
  let streamed = "";
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: base.id, object: "chat.completion.chunk", created: base.created, model: base.model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);
  return function chunksOf(event: RunEvent): string {
    const step = () => chunk([], { toolgate: { event: event.type, seq: event.seq, ...event.data } });
    switch (event.type) {
      case "run.started":
        return step() + delta({ role: "assistant", content: "" });
      case "delta": {
        const content = typeof event.data.content === "string" ? event.data.content : "";
        streamed += content;
        return content === "" ? "" : delta({ content });
      }
      case "model.turn": {
        const calls = event.data.tool_calls;
        const sent = streamed;
        streamed = "";
        // Only the final answer is the completion's text; a turn that calls tools is a step
        // (text it streamed before its calls has gone out already, as the model wrote it).
        if (Array.isArray(calls) && calls.length > 0) return step();
        const content = typeof event.data.content === "string" ? event.data.content : "";
        const rest = content.startsWith(sent) ? content.slice(sent.length) : "";
        return rest === "" ? "" : delta({ content: rest });
      }
      case "tool.result":
      case "approval.settled":
      case "input.answered":
        return step();
      case "input.pending": {
        // The stream ends on the question, as the assistant's message; the run waits for the answer.
        const choices = Array.isArray(event.data.choices) ? event.data.choices.filter((c): c is string => typeof c === "string") : [];
        return step() + delta({ content: questionText({ question: String(event.data.question ?? ""), choices }) }, "stop") + "data: [DONE]\n\n";
      }
      case "approval.pending":
        return (
          step() +
          delta({ content: awaitingText({ id: String(event.data.run_id ?? base.id.replace(/^chatcmpl-/, "")), pending: [pendingOf(event)] }) }, "stop") +
          "data: [DONE]\n\n"
        );
      case "run.finished": {
        const clientCalls = Array.isArray(event.data.client_tool_calls) ? event.data.client_tool_calls : [];
        const finish = event.data.status === "limit_reached" ? "length" : clientCalls.length > 0 ? "tool_calls" : "stop";
        const toolCalls = clientCalls.length === 0 ? {} : { tool_calls: clientCalls.map((call, index) => ({ index, ...(call as Record<string, unknown>) })) };
        const usage = event.data.usage as { promptTokens: number; completionTokens: number; totalTokens: number } | undefined;
        return (
          step() +
          delta(toolCalls, finish) +
          chunk([], {
            usage: { prompt_tokens: usage?.promptTokens ?? 0, completion_tokens: usage?.completionTokens ?? 0, total_tokens: usage?.totalTokens ?? 0 },
          }) +
          "data: [DONE]\n\n"
        );
      }
    }
  };
}

function pendingOf(event: RunEvent): RunRecord["pending"][number] {
  const approval = (event.data.approval ?? {}) as { id?: string; expires_at?: number; url?: string };
  return {
    callId: String(event.data.call_id),
    tool: String(event.data.tool),
    approvalId: approval.id ?? "",
    expiresAt: approval.expires_at ?? 0,
    url: approval.url ?? "",
  };
}
