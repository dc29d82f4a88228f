/**
 * The session side of the MCP door (Streamable HTTP, "Session Management"): `initialize` is
 * answered with an `Mcp-Session-Id`, later requests that carry one are checked against the
 * calling key and run in its approvals session, and DELETE ends that session's grants. A request
 * without the header is served as before sessions existed: each tools/call a session of its own.
 */
import type { Context } from "hono";
import { sessionStub } from "../../approvals/session-stub.ts";
import type { GatewayConfig } from "../../config/config.ts";
import type { RequestFailure } from "../../http/request-failure.ts";
import type { AppEnv } from "../../http/types.ts";
import { APPROVAL_SESSION_PREFIX, issueSessionId, verifySessionId } from "./mcp-session-id.ts";
import { rpcFailureResponse } from "./rpc-failure-response.ts";

export const MCP_SESSION_HEADER = "mcp-session-id";

/** The approvals session a request runs in (undefined: none was sent), or why its id is refused. */
export type RequestSession = { ok: true; sessionId: string | undefined } | { ok: false; failure: RequestFailure };

const NO_SESSION: RequestSession = Object.freeze({ ok: true, sessionId: undefined });

/** Reads and verifies the request's session id; a refusal is 404, so the client initialises again. */
export async function sessionOfRequest(sent: string | undefined, keyId: string, config: GatewayConfig): Promise<RequestSession> {
  if (sent === undefined) return NO_SESSION;
  // Without a secret no id was ever issued, so none can be valid.
  const verified =
    config.mcpSessions.secret === undefined ? ({ ok: false, reason: "not_valid" } as const) : await verifySessionId(config.mcpSessions.secret, sent, keyId);
  if (!verified.ok) return { ok: false, failure: { kind: "unknown_mcp_session", reason: verified.reason } };
  return { ok: true, sessionId: `${APPROVAL_SESSION_PREFIX}${verified.sessionId}` };
}

/** The header `initialize` is answered with; none when no secret is configured (stateless, as before). */
export async function newSessionHeaders(keyId: string, config: GatewayConfig): Promise<Record<string, string>> {
  const { secret, ttlSeconds } = config.mcpSessions;
  if (secret === undefined) return {};
  return { [MCP_SESSION_HEADER]: await issueSessionId(secret, keyId, ttlSeconds) };
}

/**
 * DELETE /mcp: ends the key's session-wide grants in the session, so an "approve for this
 * session" stops applying. Pending approvals stay: a person may still decide them, and an
 * approved call still runs once.
 */
export async function endSession(c: Context<AppEnv>, config: GatewayConfig): Promise<Response> {
  const sent = c.req.header(MCP_SESSION_HEADER);
  if (sent === undefined) return rpcFailureResponse({ kind: "mcp_session_required" });
  const { keyId } = c.get("principal");
  const session = await sessionOfRequest(sent, keyId, config);
  if (!session.ok) return rpcFailureResponse(session.failure);
  if (session.sessionId !== undefined) await sessionStub(c.env, session.sessionId).endGrants(keyId);
  return new Response(null, { status: 204 });
}
