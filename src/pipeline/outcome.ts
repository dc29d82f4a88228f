/**
 * How a call's state becomes its outcome: failed (the envelope the model reads, and whose fault
 * it was), succeeded (the handler's result, or its own `toolError(...)` report), or the stored
 * outcome of an approved call asked again.
 */

import { toEnvelope } from "../errors/envelope.ts";
import { faultOf } from "../errors/fault.ts";
import type { ErrorCode, ToolFailure } from "../errors/tool-failure.ts";
import { registry } from "../registry/registry.ts";
import { newCallState } from "./call-state.ts";
import type { CallOutcome, CallState } from "./types.ts";

/**
 * An outcome from the call's state, with every optional field present (undefined until the
 * builder sets it). Built whole rather than spread together from parts: in workerd a literal
 * with spreads cost about 0.5 µs more per outcome than one of fixed shape (issue 12's A/B in
 * the bench Worker), and one shape keeps every reader of outcomes monomorphic.
 */
function fromState(call: CallState, status: CallOutcome["status"], content: string): CallOutcome {
  return {
    callId: call.input.id,
    tool: call.input.name,
    toolset: call.entry?.toolset,
    status,
    content,
    arguments: call.sentArgs,
    unparsedArguments: call.parsed ? undefined : call.input.arguments,
    policy: call.policy,
    errorCode: undefined,
    envelope: undefined,
    fault: undefined,
    value: undefined,
    durationMs: Date.now() - call.startedAt,
    attempts: call.attempts,
    coercions: call.coercions,
    truncated: false,
    resultChars: content.length,
    resultHandle: undefined,
    approval: undefined,
    credential: call.credential,
  };
}

/** The outcome of a call that ended with `failure`. */
export function failedOutcome(call: CallState, failure: ToolFailure): CallOutcome {
  const envelope = toEnvelope(failure);
  const pending = failure.kind === "approval_required";
  const outcome = fromState(call, pending ? "pending_approval" : "error", JSON.stringify(envelope));
  if (pending) outcome.approval = { id: failure.approvalId, expiresAt: failure.expiresAt, url: failure.url };
  outcome.errorCode = envelope.error_code;
  outcome.envelope = envelope;
  outcome.fault = faultOf(failure);
  outcome.resultChars = 0;
  return outcome;
}

/**
 * A tool may report a business failure itself with `toolError(...)` (`{"error": "..."}`), as
 * Hermes tools do; the original's post-call hook counted that as an error, and so do we.
 */
function reportsError(value: unknown): boolean {
  let data = value;
  if (typeof value === "string") {
    if (!value.startsWith('{"error"')) return false;
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
  const outcome = fromState(call, failed ? "error" : "ok", content);
  if (failed) {
    outcome.errorCode = "EXECUTION_FAILED";
    outcome.fault = "tool";
  }
  outcome.value = value;
  return outcome;
}

/** The same tool call id again: the approved call's stored outcome, never a second run. */
export function storedOutcome(call: CallState, result: { status: "ok" | "error"; errorCode?: ErrorCode; content: string }): CallOutcome {
  const outcome = fromState(call, result.status, result.content);
  outcome.errorCode = result.errorCode;
  outcome.attempts = 0;
  return outcome;
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
