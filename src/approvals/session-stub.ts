/** The one place that turns a session id into its Session object (one object per session). */
import type { SessionApi } from "./session-api.ts";

/**
 * The session's Durable Object (created on first use). Typed as the class's own interface:
 * the generated RPC stub type cannot express the `unknown` values of tool arguments.
 */
export function sessionStub(env: Env, sessionId: string): SessionApi {
  return env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)) as SessionApi;
}
