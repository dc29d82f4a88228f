/**
 * The approval operations the HTTP routes and the approvals page share. Listings come from the
 * D1 index; reading and deciding go to the session's own Durable Object, which holds the truth
 * and only answers for approvals of its own session.
 */
import type { Principal } from "../auth/principal.ts";
import { currentRequestId } from "../tracing/request-context.ts";
import { listApprovalIndex, sessionOfApproval } from "./approval-index.ts";
import type { ApprovalScope, ApprovalStatus, ApprovalView } from "./approval-view.ts";
import { sessionStub } from "./session-stub.ts";

export type DecideInput = { id: string; decision: "approve" | "deny"; scope: ApprovalScope; reason?: string; decidedBy: Principal };

export type DecideResult =
  | { ok: true; approval: ApprovalView }
  | { ok: false; kind: "not_found" }
  | { ok: false; kind: "forbidden" }
  | { ok: false; kind: "conflict"; approval: ApprovalView };

/** Approvals across sessions, newest first, from the D1 index (which may lag a change by one write). */
export function listApprovals(env: Env, query: { status?: ApprovalStatus; sessionId?: string; limit?: number }): Promise<ApprovalView[]> {
  return listApprovalIndex(env.DB, query);
}

/** One approval by id, as its session's Durable Object holds it now. */
export async function getApproval(env: Env, id: string): Promise<ApprovalView | undefined> {
  const sessionId = await sessionOfApproval(env.DB, id);
  return sessionId === undefined ? undefined : getApprovalInSession(env, sessionId, id);
}

/**
 * One approval of the given session, waiting up to `waitMs` for it to settle. Another
 * session's approval id is unknown here: the object only holds its own session's approvals.
 */
export function getApprovalInSession(env: Env, sessionId: string, id: string, waitMs = 0): Promise<ApprovalView | undefined> {
  return sessionStub(env, sessionId).wait(id, sessionId, waitMs);
}

/**
 * Decides a pending approval; the first decision wins, a later one gets `conflict` with the
 * state it lost to. An approval runs the call (once) before this resolves. Agent keys may not
 * decide, whoever asked.
 */
export async function decideApproval(env: Env, input: DecideInput): Promise<DecideResult> {
  if (input.decidedBy.role === "agent") return { ok: false, kind: "forbidden" };
  const sessionId = await sessionOfApproval(env.DB, input.id);
  if (sessionId === undefined) return { ok: false, kind: "not_found" };
  return decideApprovalInSession(env, sessionId, input);
}

/** decideApproval for a caller that names the session (the id must belong to it). */
export async function decideApprovalInSession(env: Env, sessionId: string, input: DecideInput): Promise<DecideResult> {
  if (input.decidedBy.role === "agent") return { ok: false, kind: "forbidden" };
  const reason = input.reason?.trim();
  try {
    return await sessionStub(env, sessionId).decide({
      id: input.id,
      sessionId,
      decision: input.decision,
      scope: input.scope,
      reason: reason === undefined || reason === "" ? undefined : reason,
      decidedBy: input.decidedBy.keyId,
      requestId: currentRequestId(),
    });
  } catch (error) {
    // The object restarted while deciding (a run cut short): if this decision was stored, answer
    // with what the restarted object recorded rather than an error the approver cannot act on.
    // A new stub: one that saw its object break stays broken.
    const current = await sessionStub(env, sessionId).get(input.id, sessionId);
    if (current !== undefined && current.status !== "pending" && current.decidedBy === input.decidedBy.keyId) return { ok: true, approval: current };
    throw error;
  }
}
