/** What pipeline hooks (plugins) see of a call and of its outcome. */
import type { CallEvent, PostCallEvent } from "../../plugins/pipeline-hooks.ts";
import type { CallOutcome, CallState, RequestScope } from "../types.ts";

export function callEvent(call: CallState, scope: RequestScope): CallEvent {
  return { tool: call.input.name, toolset: call.entry?.toolset ?? "", callId: call.input.id, sessionId: scope.sessionId, args: call.args, env: scope.env };
}

export function postCallEvent(outcome: CallOutcome, call: CallState, scope: RequestScope): PostCallEvent {
  return {
    ...callEvent(call, scope),
    toolset: outcome.toolset ?? "",
    result: outcome.content,
    status: outcome.status,
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    durationMs: outcome.durationMs,
  };
}
