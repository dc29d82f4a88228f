/**
 * Runs one call through the real pipeline for tests that drive it directly, from a flat
 * context (the scope's fields and the call's), on the same parts the Worker builds.
 */
import { admitAll, type BatchOptions, runBatch } from "../../src/batch/run-batch.ts";
import { createParts } from "../../src/compose.ts";
import type { ToolFailure } from "../../src/errors/tool-failure.ts";
import { openScope, type ScopeInput } from "../../src/pipeline/request-scope.ts";
import { admit, endUnrun, handleFunctionCall as runHermes, dispatchCall as runOne } from "../../src/pipeline/run-call.ts";
import type { CallInput, CallOutcome, CallRun, RequestScope } from "../../src/pipeline/types.ts";

/** A test's view of one call: who calls and how, and the call's own id and run. */
export interface CallContext extends ScopeInput, Partial<CallRun> {
  callId: string;
}

/** The parts tests run calls on: the same module-level registry, caches and hooks as the Worker's. */
export const testParts = createParts();
const parts = testParts;

/** The scope a test call runs in, built by the Worker's own builder. */
export function scopeOf(context: Omit<CallContext, "callId">): Promise<RequestScope> {
  const { dependencyResults: _d, batch: _b, approved: _a, ...input } = context;
  return openScope(parts.pipeline, input);
}

/** Admits and runs one call. */
export async function dispatchCall(name: string, rawArguments: unknown, context: CallContext): Promise<CallOutcome> {
  const { dependencyResults, batch, approved } = context;
  const run: CallRun = { dependencyResults, batch, approved };
  return runOne({ id: context.callId, name, arguments: rawArguments }, await scopeOf(context), run);
}

/** Hermes' entry point: the JSON string the model reads. */
export async function handleFunctionCall(name: string, rawArguments: unknown, context: CallContext): Promise<string> {
  return runHermes(name, rawArguments, await scopeOf(context), context.callId);
}

/** Ends a call the batch layer decided not to run, with `failure`. */
export async function settleUnrun(name: string, rawArguments: unknown, context: CallContext, failure: ToolFailure): Promise<CallOutcome> {
  const scope = await scopeOf(context);
  return endUnrun(admit({ id: context.callId, name, arguments: rawArguments }, scope), failure, scope);
}

/** Admits and runs a batch, as serveCalls does without its rate limits and audit records. */
export async function runTestBatch(calls: readonly CallInput[], context: ScopeInput, options: BatchOptions): Promise<CallOutcome[]> {
  const scope = await scopeOf(context);
  return runBatch(admitAll(calls, scope), scope, options);
}
