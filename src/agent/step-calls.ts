/**
 * A model turn's tool calls, sorted and answered: which are toolgate's (run through the
 * pipeline) and which the client declared (returned to it unexecuted), and the step's report of
 * each outcome. Pure functions; the Run object stores what they return.
 */
import type { CallInput, CallOutcome } from "../pipeline/types.ts";
import type { ClientTool, PendingCall, StepCall, ToolCall } from "./run-types.ts";

/** The function calls of a turn, split by whose tools they name. */
export function splitCalls(calls: readonly ToolCall[], clientTools: readonly ClientTool[]): { own: ToolCall[]; client: ToolCall[] } {
  const clientNames = new Set(clientTools.flatMap((tool) => (tool.type === "function" ? [tool.function.name] : [])));
  const own: ToolCall[] = [];
  const client: ToolCall[] = [];
  for (const call of calls) {
    if (call.type !== "function") continue;
    (clientNames.has(call.function.name) ? client : own).push(call);
  }
  return { own, client };
}

/**
 * The pipeline's input for a call, arguments as the model sent them: malformed JSON and unknown
 * tools become the usual structured tool errors there, which the model reads and can fix.
 */
export const callInputOf = (call: ToolCall): CallInput =>
  call.type === "function"
    ? { id: call.id, name: call.function.name, arguments: call.function.arguments, format: "openai" }
    : { id: call.id, name: "", arguments: "{}" };

export const nameOf = (call: ToolCall): string => (call.type === "function" ? call.function.name : "");

/** How a call ended, as the run's steps list it. */
export function stepCallOf(outcome: CallOutcome): StepCall {
  return {
    id: outcome.callId,
    tool: outcome.tool,
    status: outcome.status,
    error_code: outcome.errorCode ?? null,
    duration_ms: outcome.durationMs,
    ...(outcome.approval === undefined ? {} : { approval: { id: outcome.approval.id, expires_at: outcome.approval.expiresAt, url: outcome.approval.url } }),
  };
}

/** A call left waiting on a person. */
export function pendingOf(outcome: CallOutcome): PendingCall | undefined {
  if (outcome.status !== "pending_approval" || outcome.approval === undefined) return undefined;
  return { callId: outcome.callId, tool: outcome.tool, approvalId: outcome.approval.id, expiresAt: outcome.approval.expiresAt, url: outcome.approval.url };
}
