/**
 * Stages 10 to 12, after the handler: post-call hooks observe the outcome, transform hooks may
 * rewrite the result, and the size limit keeps a head and a tail of an oversized one (storing
 * the whole for `read_result`).
 */
import { limitResult } from "../../results/limit-result.ts";
import type { CallOutcome, CallState, RequestScope } from "../types.ts";
import { postCallEvent } from "./call-event.ts";
import { entryOf } from "./entry-of.ts";

/** Post-call hooks alone: every outcome passes them, whether or not the handler ran. */
export async function postHooks(outcome: CallOutcome, call: CallState, scope: RequestScope): Promise<CallOutcome> {
  const hooks = scope.parts.hooks;
  if (hooks.hasPostCall(scope.env)) await hooks.runPostCall(postCallEvent(outcome, call, scope));
  return outcome;
}

/** Post-call hooks, transform hooks and the size limit, for calls whose handler ran. */
export async function finish(outcome: CallOutcome, call: CallState, scope: RequestScope): Promise<CallOutcome> {
  const hooks = scope.parts.hooks;
  const post = hooks.hasPostCall(scope.env);
  const transform = hooks.hasTransform(scope.env);
  const event = post || transform ? postCallEvent(outcome, call, scope) : undefined;
  if (event !== undefined && post) await hooks.runPostCall(event);
  const content = event !== undefined && transform ? await hooks.runTransform(event) : outcome.content;
  const entry = entryOf(call);
  if (content.length <= entry.maxResultSizeChars) return content === outcome.content ? outcome : { ...outcome, content, resultChars: content.length };
  const limited = await limitResult(content, entry.maxResultSizeChars, {
    tool: entry.name,
    callId: call.input.id,
    sessionId: scope.sessionId,
    env: scope.env,
    ttlSeconds: scope.config.resultTtlSeconds,
  });
  return {
    ...outcome,
    content: limited.content,
    truncated: limited.truncated,
    resultChars: limited.totalChars,
    ...(limited.handle === undefined ? {} : { resultHandle: limited.handle }),
  };
}
