/**
 * Stage 8, approval: after validation and pre-call hooks (so an approval binds to the arguments
 * the handler would really get) and before execute. Every door reaches execute only through
 * here, so none can skip it.
 *
 * A call of a tool that needs approval runs only when a session-scope grant covers its tool, or
 * when the session's object runs it after a person approved exactly these arguments. Otherwise
 * it ends pending (a new approval, or the one asked for this tool call id before), or with the
 * stored outcome of that earlier approval; a tool call id asked before for other arguments is
 * refused (one id, one request).
 */
import { needsApproval } from "../../approvals/approval-policy.ts";
import { approvalPageUrl, approvalPollPath } from "../../approvals/approval-url.ts";
import type { ApprovalView } from "../../approvals/approval-view.ts";
import { sessionStub } from "../../approvals/session-stub.ts";
import { canonicalJson } from "../../audit/canonical-json.ts";
import { sha256Hex } from "../../crypto/sha256.ts";
import type { ErrorCode } from "../../errors/tool-failure.ts";
import { storedOutcome } from "../outcome.ts";
import type { CallState, RequestScope, StageResult } from "../types.ts";
import { entryOf } from "./entry-of.ts";

export function approval(call: CallState, scope: RequestScope): StageResult | Promise<StageResult> {
  const entry = entryOf(call);
  // The synchronous check first: calls of ordinary tools pay no await for the approvals layer.
  if (!needsApproval(entry, scope.config, call.args)) return undefined;
  // The final arguments' binding, computed once: it is compared with an approved call's, or sent
  // with the request so the session's object need not compute it again.
  const exact = canonicalJson(call.args);
  const bindingSha256 = sha256Hex(exact);
  const approved = call.run.approved;
  if (approved !== undefined) {
    if (bindingSha256 === approved.bindingSha256) return undefined;
    return { fail: { kind: "approval_unbound", name: entry.name, approvalId: approved.approvalId } };
  }
  return ask(call, scope, exact, bindingSha256);
}

async function ask(call: CallState, scope: RequestScope, exact: string, bindingSha256: string): Promise<StageResult> {
  const entry = entryOf(call);
  const { config } = scope;
  try {
    const answer = await sessionStub(scope.env, scope.sessionId).request({
      sessionId: scope.sessionId,
      toolCallId: call.input.id,
      tool: entry.name,
      toolset: entry.toolset,
      arguments: call.args,
      exact,
      bindingSha256,
      requestedBy: scope.keyId,
      matchArguments: scope.matchApprovalsByArguments === true,
      ttlMs: config.approval.ttlSeconds * 1000,
      origin: scope.connection.origin,
      notify: config.approval.notify,
      outboundAllow: config.outboundAllow,
      ...(scope.run === undefined ? {} : { runId: scope.run.id }),
    });
    switch (answer.kind) {
      case "granted":
        return undefined;
      case "call_id_reused":
        return { fail: { kind: "call_id_reused", name: entry.name, callId: answer.toolCallId, firstTool: answer.firstTool } };
      case "settled":
        // Settled means decided with a result (isSettled); without one it is still waiting, as before.
        return answer.approval.result === undefined ? pending(answer.approval, scope) : settled(answer.approval.result, call);
      case "pending":
        return pending(answer.approval, scope);
    }
  } catch (error) {
    // Fail closed: without the session's object nobody can approve, so the call must not run.
    console.error(`approval stage: session ${scope.sessionId} unreachable for '${entry.name}': ${String(error)}`);
    return {
      fail: { kind: "unavailable", name: entry.name, reason: "it needs a person's approval and the approvals store could not be reached", retryAfterMs: 5_000 },
    };
  }
}

/** The same tool call id again, its approval settled: the stored message, never a second run. */
function settled(result: NonNullable<ApprovalView["result"]>, call: CallState): StageResult {
  // The stored code was written from a CallOutcome's ErrorCode by the Session object.
  return {
    done: storedOutcome(call, {
      status: result.status,
      content: result.content,
      ...(result.errorCode === null ? {} : { errorCode: result.errorCode as ErrorCode }),
    }),
  };
}

/** A pending approval refuses the call: the model is told where a person decides it. */
function pending(view: ApprovalView, scope: RequestScope): StageResult {
  return {
    fail: {
      kind: "approval_required",
      name: view.tool,
      approvalId: view.id,
      expiresAt: view.expiresAt,
      url: approvalPageUrl(scope.connection.origin, view.id),
      pollPath: approvalPollPath(view.id, view.sessionId),
    },
  };
}
