/**
 * How a call's state becomes its outcome: failed (the envelope the model reads, and whose fault
 * it was), succeeded (the handler's result, or its own `toolError(...)` report), or the stored
 * outcome of an approved call asked again.
 */
import type { ErrorCode, ToolFailure } from "../errors/tool-failure.ts";
import { toEnvelope } from "../errors/envelope.ts";
import { faultOf } from "../errors/fault.ts";
import { registry } from "../registry/registry.ts";
import { newCallState } from "./call-state.ts";
import type { CallOutcome, CallState } from "./types.ts";

/** The part of an outcome that comes from the call's state. */
function base(call: CallState): Pick<CallOutcome, "callId" | "tool" | "toolset" | "arguments" | "unparsedArguments" | "policy" | "durationMs" | "attempts" | "coercions"> {
  return {
    callId: call.input.id,
    tool: call.input.name,
    toolset: call.entry?.toolset,
    arguments: call.sentArgs,
    ...(call.parsed ? {} : { unparsedArguments: call.input.arguments }),
    ...(call.policy === undefined ? {} : { policy: call.policy }),
    durationMs: Date.now() - call.startedAt,
    attempts: call.attempts,
    coercions: call.coercions,
  };
}

/** The outcome of a call that ended with `failure`. */
export function failedOutcome(call: CallState, failure: ToolFailure): CallOutcome {
  const envelope = toEnvelope(failure);
  const pending = failure.kind === "approval_required";
  return {
    ...base(call),
    status: pending ? "pending_approval" : "error",
    ...(pending ? { approval: { id: failure.approvalId, expiresAt: failure.expiresAt, url: failure.url } } : {}),
    content: JSON.stringify(envelope),
    errorCode: envelope.error_code,
    envelope,
    fault: faultOf(failure),
    truncated: false,
    resultChars: 0,
  };
}

/**
 * A tool may report a business failure itself with `toolError(...)` (`{"error": "..."}`), as
 * Hermes tools do; the original's post-call hook counted that as an error, and so do we.
 */
function reportsError(value: unknown): boolean {
  let data = value;
  if (typeof value === "string") {
    if (!value.startsWith("{\"error\"")) return false;
    try {
      data = JSON.parse(value);
    } catch {
      return false;
    }
  }
  return typeof data === "object" && data !== null && typeof (data as { error?: unknown }).error === "string";
}

/** The outcome of a handler that returned. */
export function succeededOutcome(call: CallState, content: string, value: unknown): CallOutcome {
  const failed = reportsError(value);
  return {
    ...base(call),
    status: failed ? "error" : "ok",
    ...(failed ? { errorCode: "EXECUTION_FAILED" as const, fault: "tool" as const } : {}),
    content,
    value,
    truncated: false,
    resultChars: content.length,
  };
}

/** The same tool call id again: the approved call's stored outcome, never a second run. */
export function storedOutcome(call: CallState, result: { status: "ok" | "error"; errorCode?: ErrorCode; content: string }): CallOutcome {
  return {
    ...base(call),
    status: result.status,
    content: result.content,
    ...(result.errorCode === undefined ? {} : { errorCode: result.errorCode }),
    attempts: 0,
    truncated: false,
    resultChars: result.content.length,
  };
}

/**
 * The outcome of a call that ended with `failure` outside a request (the approvals layer's
 * denials, expiries and interrupted runs), with the arguments it knows.
 */
export function outcomeOfFailure(name: string, callId: string, failure: ToolFailure, args: Record<string, unknown>): CallOutcome {
  const call = newCallState({ id: callId, name, arguments: args });
  call.parsed = true;
  call.sentArgs = args;
  call.args = args;
  call.entry = registry.get(name);
  return failedOutcome(call, failure);
}
