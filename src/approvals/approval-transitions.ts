/**
 * Each change of an approval after its request, as a pure function of the row: decided, expired,
 * run, interrupted. The Session object saves the new row (approval-store.ts) in the same step as
 * the check that allowed the change. Every change raises `version`, so a late write to the D1
 * index never overwrites a newer state.
 */
import { outcomeOfFailure } from "../pipeline/outcome.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import type { ApprovalRow } from "./approval-row.ts";
import type { DecisionInput } from "./session-api.ts";

/** The result columns of an outcome, as a settled approval stores it. */
export function resultColumns(outcome: CallOutcome): Pick<ApprovalRow, "result_status" | "result_error_code" | "result_content"> {
  return { result_status: outcome.status === "ok" ? "ok" : "error", result_error_code: outcome.errorCode ?? null, result_content: outcome.content };
}

/**
 * A pending row after a person's decision. An approval is recorded as running in this same row,
 * before the call starts (the exactly-once mark); a denial settles it with its outcome.
 */
export function decidedRow(row: ApprovalRow, input: DecisionInput, now: number): { row: ApprovalRow; denial: CallOutcome | undefined } {
  const approve = input.decision === "approve";
  const denial = approve
    ? undefined
    : outcomeOfFailure(
        row.tool,
        row.tool_call_id,
        { kind: "approval_denied", name: row.tool, approvalId: row.id, reason: input.reason, decidedBy: input.decidedBy },
        {},
      );
  const decided: ApprovalRow = {
    ...row,
    status: approve ? "approved" : "denied",
    scope: approve ? input.scope : null,
    decided_by: input.decidedBy,
    decided_at: now,
    reason: input.reason ?? null,
    run_state: approve ? "running" : "none",
    ...(denial === undefined ? {} : resultColumns(denial)),
    version: row.version + 1,
  };
  return { row: decided, denial };
}

/** A pending row past its time, expired, and the outcome its call gets. */
export function expiredRow(row: ApprovalRow, now: number): { row: ApprovalRow; outcome: CallOutcome } {
  const failure = { kind: "approval_expired" as const, name: row.tool, approvalId: row.id, expiresAt: row.expires_at };
  const outcome = outcomeOfFailure(row.tool, row.tool_call_id, failure, {});
  return { row: { ...row, status: "expired", decided_at: now, ...resultColumns(outcome), version: row.version + 1 }, outcome };
}

/** The outcome of an approved run cut short: whether its effect happened is unknown. */
export function interruptedOutcome(row: ApprovalRow): CallOutcome {
  return outcomeOfFailure(row.tool, row.tool_call_id, { kind: "approval_interrupted", name: row.tool, approvalId: row.id }, {});
}

/** An approved row whose run ended with `outcome`; it never runs again. */
export function doneRow(row: ApprovalRow, outcome: CallOutcome): ApprovalRow {
  return { ...row, ...resultColumns(outcome), run_state: "done", version: row.version + 1 };
}
