/**
 * Calls a handler makes (execute_code's script calling `tools.x(...)`), served like a door's:
 * a key's call is charged against its rate limits, run through the pipeline and audited by
 * serveCalls; a trusted internal run (an approved call in its session's object, which has no
 * key) is run and audited without a charge, as its parent was. Each gets its own audit record
 * under the parent's session, its call id derived from the parent's.
 */
import type { KeyScope, RequestScope, ServeNested } from "../pipeline/types.ts";
import { admitAll } from "./run-batch.ts";
import { type BatchStages, serveCalls } from "./serve-calls.ts";

/** The serveNested part over the batch stages the composition root built. */
export function createServeNested(stages: BatchStages): ServeNested {
  return async function serveNested(input, scope, timeoutMs) {
    // The nested call's batch is the time its parent has left, so it cannot outlive the parent.
    const bounded = { ...scope, config: { ...scope.config, batchTimeoutMs: Math.max(1, Math.min(scope.config.batchTimeoutMs, timeoutMs)) } };
    if (isKeyScope(bounded)) {
      const [outcome] = await serveCalls([input], bounded, 1, stages);
      return outcome ?? missing(input.id);
    }
    const [outcome] = await stages.runCalls(admitAll([input], bounded), bounded, { maxParallel: 1, batchTimeoutMs: bounded.config.batchTimeoutMs });
    if (outcome === undefined) return missing(input.id);
    stages.recordBatch(bounded.env, bounded.waitUntil, [{ rawArguments: outcome.unparsedArguments ?? outcome.arguments, outcome, finishedAt: Date.now() }], {
      keyId: bounded.keyId,
      sessionId: bounded.sessionId,
      requestId: bounded.requestId,
      ...(bounded.run === undefined ? {} : { runId: bounded.run.auditId }),
    });
    return outcome;
  };
}

function isKeyScope(scope: RequestScope): scope is KeyScope {
  return scope.principal !== undefined && scope.access !== undefined;
}

function missing(id: string): never {
  throw new Error(`nested call ${id} returned no outcome`);
}
