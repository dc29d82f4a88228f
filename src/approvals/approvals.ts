/**
 * The approval operations the HTTP routes and the approvals page share.
 */
import type { Principal } from "../auth/principal.ts";
import type { ApprovalScope, ApprovalStatus, ApprovalView } from "./approval-view.ts";

/** Approvals across sessions, newest first, from the D1 index. */
export function listApprovals(env: Env, query: { status?: ApprovalStatus; sessionId?: string; limit?: number }): Promise<ApprovalView[]> {
  void env;
  void query;
  return Promise.reject(new Error("not implemented yet"));
}

/** One approval by id, as its session's Durable Object holds it. */
export function getApproval(env: Env, id: string): Promise<ApprovalView | undefined> {
  void env;
  void id;
  return Promise.reject(new Error("not implemented yet"));
}

/** Decides a pending approval; the first decision wins. */
export function decideApproval(
  env: Env,
  input: { id: string; decision: "approve" | "deny"; scope: ApprovalScope; reason?: string; decidedBy: Principal },
): Promise<{ ok: true; approval: ApprovalView } | { ok: false; kind: "not_found" } | { ok: false; kind: "forbidden" } | { ok: false; kind: "conflict"; approval: ApprovalView }> {
  void env;
  void input;
  return Promise.reject(new Error("not implemented yet"));
}
