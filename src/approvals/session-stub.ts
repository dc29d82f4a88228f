/** The one place that turns a session id into its Session object (one object per session). */
import type { ApprovalView } from "./approval-view.ts";
import type { ApprovalRequest, DecisionAnswer, DecisionInput, RequestAnswer } from "./session.ts";

/** The Session object's RPC methods (the class implements this). */
export interface SessionApi {
  request(input: ApprovalRequest): Promise<RequestAnswer>;
  get(id: string, sessionId: string): Promise<ApprovalView | undefined>;
  wait(id: string, sessionId: string, timeoutMs: number): Promise<ApprovalView | undefined>;
  decide(input: DecisionInput): Promise<DecisionAnswer>;
}

/**
 * The session's Durable Object (created on first use). Typed as the class's own interface:
 * the generated RPC stub type cannot express the `unknown` values of tool arguments.
 */
export function sessionStub(env: Env, sessionId: string): SessionApi {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)) as unknown as SessionApi;
}
