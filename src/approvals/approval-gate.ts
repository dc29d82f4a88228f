/**
 * The pipeline's approval stage, after validation and pre-call hooks (so an approval binds to
 * the arguments the handler would really get) and before execute. Every door reaches execute
 * only through here, so no door can skip it.
 *
 * A call of a tool that needs approval runs only when a session-scope grant covers its tool,
 * or when the session's object runs it after a person approved exactly these arguments.
 * Otherwise it ends pending (a new approval, or the one asked for this tool call id before), or
 * with the stored outcome of that earlier approval; a tool call id asked before for other
 * arguments is refused.
 */
import { canonicalJson } from "../audit/canonical-json.ts";
import { sha256Hex } from "../crypto/sha256.ts";
import type { GatewayConfig } from "../config/config.ts";
import type { CallContext } from "../dispatch/handle-function-call.ts";
import type { ErrorCode, ToolFailure } from "../errors/tool-failure.ts";
import type { ToolEntry } from "../registry/types.ts";
import { approvalPageUrl, approvalPollPath } from "./approval-url.ts";
import type { ApprovalView } from "./approval-view.ts";
import { sessionStub } from "./session-stub.ts";

/** An approved call as the Session object hands it to the pipeline. */
export interface ApprovedCall {
  approvalId: string;
  /** SHA-256 of the canonical JSON of the approved arguments. */
  bindingSha256: string;
}

export type GateVerdict =
  | { kind: "run" }
  | { kind: "refuse"; failure: ToolFailure }
  | { kind: "stored"; result: { status: "ok" | "error"; errorCode?: ErrorCode; content: string } };

const RUN: GateVerdict = { kind: "run" };

/** Key id recorded as the requester when a door does not name one. */
export const UNKNOWN_REQUESTER = "unknown";

/**
 * Whether a call of a tool that needs approval (`needsApproval`, which the pipeline checks first
 * so ordinary calls skip this) may run now, and if not, how it ends.
 */
export async function approvalGate(entry: ToolEntry, args: Record<string, unknown>, context: CallContext, config: GatewayConfig): Promise<GateVerdict> {
  if (context.approved !== undefined) {
    const bound = sha256Hex(canonicalJson(args)) === context.approved.bindingSha256;
    return bound ? RUN : { kind: "refuse", failure: { kind: "approval_unbound", name: entry.name, approvalId: context.approved.approvalId } };
  }
  try {
    const answer = await sessionStub(context.env, context.sessionId).request({
      sessionId: context.sessionId,
      toolCallId: context.callId,
      tool: entry.name,
      toolset: entry.toolset,
      arguments: args,
      requestedBy: context.keyId ?? UNKNOWN_REQUESTER,
      ttlMs: config.approval.ttlSeconds * 1000,
      origin: context.origin,
      notify: config.approval.notify,
      outboundAllow: config.outboundAllow,
    });
    if (answer.kind === "call_id_reused") return { kind: "refuse", failure: { kind: "call_id_reused", name: entry.name, callId: answer.toolCallId, firstTool: answer.firstTool } };
    return answer.kind === "granted" ? RUN : verdictOf(answer.approval, context);
  } catch (error) {
    // Fail closed: without the session's object nobody can approve, so the call must not run.
    console.error(`approval gate: session ${context.sessionId} unreachable for '${entry.name}': ${String(error)}`);
    return { kind: "refuse", failure: { kind: "unavailable", name: entry.name, reason: "it needs a person's approval and the approvals store could not be reached", retryAfterMs: 5_000 } };
  }
}

/** A pending approval refuses the call; a settled one answers with its stored message. */
function verdictOf(approval: ApprovalView, context: CallContext): GateVerdict {
  if (approval.status !== "pending" && approval.result !== undefined) {
    const { status, errorCode, content } = approval.result;
    // The stored code was written from a CallOutcome's ErrorCode by the Session object.
    return { kind: "stored", result: { status, content, ...(errorCode === null ? {} : { errorCode: errorCode as ErrorCode }) } };
  }
  return {
    kind: "refuse",
    failure: {
      kind: "approval_required",
      name: approval.tool,
      approvalId: approval.id,
      expiresAt: approval.expiresAt,
      url: approvalPageUrl(context.origin, approval.id),
      pollPath: approvalPollPath(approval.id, approval.sessionId),
    },
  };
}
