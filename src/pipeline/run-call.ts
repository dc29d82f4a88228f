/**
 * The pipeline, top to bottom. Every door (HTTP, MCP, webhooks, an approved call in its
 * session's object) runs a call through here:
 *
 *   admit:   1 parse → 2 look up → 3 access                (synchronous, done once per call;
 *            the batch layer charges rate limits from it)
 *   prepare: 4 availability → 5 coerce → 6 validate → 7 pre-call hooks → 8 approval
 *   run:     9 execute → 10–12 post-call hooks, transform hooks, size limit
 *
 * A stage returns nothing to go on, a failure to end the call, or a finished outcome. Nothing
 * throws out of here: a failure of our own code still becomes a well-formed, sanitised error.
 */
import type { ToolFailure } from "../errors/tool-failure.ts";
import { describeThrown } from "../execution/sanitize-error.ts";
import { newCallState } from "./call-state.ts";
import { failedOutcome } from "./outcome.ts";
import { checkAccess } from "./stages/access.ts";
import { approval } from "./stages/approval.ts";
import { checkAvailability } from "./stages/availability.ts";
import { coerce } from "./stages/coerce.ts";
import { execute } from "./stages/execute.ts";
import { finish, postHooks } from "./stages/finish.ts";
import { lookup } from "./stages/lookup.ts";
import { parse } from "./stages/parse.ts";
import { preHooks } from "./stages/pre-hooks.ts";
import { validate } from "./stages/validate.ts";
import type { CallInput, CallOutcome, CallRun, CallState, RequestScope, Stage, StageResult } from "./types.ts";

type AdmissionStage = (call: CallState, scope: RequestScope) => StageResult;

const ADMISSION: readonly AdmissionStage[] = [parse, lookup, checkAccess];
const PREPARATION: readonly Stage[] = [checkAvailability, coerce, validate, preHooks, approval];

/** Runs the admission stages: the call's arguments parsed, its tool found, its access decided. */
export function admit(input: CallInput, scope: RequestScope, run?: CallRun): CallState {
  const call = newCallState(input, run);
  for (const stage of ADMISSION) {
    const result = stage(call, scope);
    if (result === undefined) continue;
    if ("fail" in result) call.refused = result.fail;
    break;
  }
  // Arguments that do not parse end the call before look-up; its outcome still names the tool's toolset.
  call.entry ??= scope.catalog.get(input.name);
  return call;
}

/** Runs an admitted call to its outcome; never rejects. */
export async function runCall(call: CallState, scope: RequestScope): Promise<CallOutcome> {
  // Its deadline and duration count from here, not from admission: a call may have waited for
  // the rate limiter, its dependencies or a free slot in the batch.
  call.startedAt = Date.now();
  try {
    if (call.refused !== undefined) return await postHooks(failedOutcome(call, call.refused), call, scope);
    for (const stage of PREPARATION) {
      const pending = stage(call, scope);
      // Synchronous stages answer without a promise, so quick calls pay no microtask for them.
      const result = pending instanceof Promise ? await pending : pending;
      if (result !== undefined) return await postHooks("fail" in result ? failedOutcome(call, result.fail) : result.done, call, scope);
    }
    return await finish(await execute(call, scope), call, scope);
  } catch (unexpected) {
    const name = call.input.name;
    console.error(`dispatch of '${name}' failed unexpectedly: ${describeThrown(name, unexpected)}`);
    return failedOutcome(call, { kind: "handler_threw", name, detail: describeThrown(name, unexpected), retryable: false });
  }
}

/**
 * Ends a call that the batch layer decided not to run (a rate limit, a failed dependency, a
 * passed batch deadline) the way every other call ends: as an outcome post-call hooks see.
 */
export function endUnrun(call: CallState, failure: ToolFailure, scope: RequestScope): Promise<CallOutcome> {
  call.startedAt = Date.now();
  return postHooks(failedOutcome(call, failure), call, scope);
}

/** Admits and runs one call: the whole pipeline for a door with a single call. */
export function dispatchCall(input: CallInput, scope: RequestScope, run?: CallRun): Promise<CallOutcome> {
  return runCall(admit(input, scope, run), scope);
}

/** Hermes' entry point, by name: runs a call and returns the JSON string the model reads. */
export async function handleFunctionCall(name: string, rawArguments: unknown, scope: RequestScope, callId: string = crypto.randomUUID()): Promise<string> {
  return (await dispatchCall({ id: callId, name, arguments: rawArguments }, scope)).content;
}
