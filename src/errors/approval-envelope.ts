/**
 * What the model reads when a call meets the approval gate: it waits for a person, or a person
 * denied it, or nobody decided in time, or it was cut short after approval, or its arguments
 * no longer match the approved ones; and a tool call id reused for another request, which the
 * gate's binding of one id to one request refuses.
 */
import type { ErrorEnvelope } from "./error-envelope.ts";
import type { ToolFailure } from "./tool-failure.ts";

/** The failures of the approval gate and of its call-id binding. */
export type ApprovalFailure = Extract<
  ToolFailure,
  { kind: "approval_required" | "approval_denied" | "approval_expired" | "approval_interrupted" | "approval_unbound" | "call_id_reused" }
>;

/**
 * Maps an approval failure to its envelope (unsanitised: `toEnvelope` sanitises every kind).
 * Exhaustive over the family, so a new approval kind does not compile until it is written here.
 */
export function approvalEnvelope(failure: ApprovalFailure): ErrorEnvelope {
  switch (failure.kind) {
    case "approval_required":
      return {
        error: `Tool '${failure.name}' needs a person's approval before it runs; it has not run. Approval ${failure.approvalId} is pending until ${new Date(failure.expiresAt).toISOString()}.`,
        error_code: "APPROVAL_REQUIRED",
        stage: "approval",
        suggestion: `Tell the user that approval ${failure.approvalId} is pending and can be decided at ${failure.url}. Fetch the outcome with GET ${failure.pollPath} (it waits up to 30 s for a decision), or send this same tool call (same id) again in this session; do not make a new call for the same action.`,
        retryable: false,
        approval: { id: failure.approvalId, expires_at: new Date(failure.expiresAt).toISOString(), url: failure.url },
      };
    case "approval_denied":
      return {
        error: `A person denied the call to '${failure.name}' (approval ${failure.approvalId}): ${failure.reason ?? "no reason given"}`,
        error_code: "APPROVAL_DENIED",
        stage: "approval",
        suggestion: "Do not repeat this call; take the reason into account, choose another approach, or ask the user.",
        retryable: false,
      };
    case "approval_expired":
      return {
        error: `Nobody decided approval ${failure.approvalId} for '${failure.name}' before it expired at ${new Date(failure.expiresAt).toISOString()}; the call did not run.`,
        error_code: "APPROVAL_EXPIRED",
        stage: "approval",
        suggestion: "Ask the user whether the action is still wanted; if so, call the tool again (with a new call id) to ask for approval again.",
        retryable: false,
      };
    case "approval_interrupted":
      return {
        error: `The approved call to '${failure.name}' (approval ${failure.approvalId}) was interrupted while running, so whether it took effect is unknown. It was not run a second time.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Check whether the action happened (read its effect) before asking to run it again with a new call id.",
        retryable: false,
      };
    case "approval_unbound":
      return {
        error: `Approval ${failure.approvalId} covers other arguments than '${failure.name}' ended up with (a pre-call hook changed them), so the call did not run.`,
        error_code: "APPROVAL_DENIED",
        stage: "approval",
        suggestion: "Call the tool again with a new call id to ask for approval of these arguments.",
        retryable: false,
      };
    case "call_id_reused":
      return {
        error: `Tool call id '${failure.callId}' was already used in this session for a call of '${failure.firstTool}'${failure.firstTool === failure.name ? " with other arguments" : ""}, so this call of '${failure.name}' did not run.`,
        error_code: "CALL_ID_REUSED",
        stage: "approval",
        suggestion: `Send this request again with a new tool call id; '${failure.callId}' only ever answers with the outcome of its first request.`,
        retryable: false,
      };
  }
}
