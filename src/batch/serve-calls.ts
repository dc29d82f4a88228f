/**
 * What every door does with a key's tool calls, around the pipeline: admit them (parse, look
 * up, decide access: once per call), charge those that will reach their handler against the
 * key's rate limits, run them (runBatch: deadlines, retries, breakers, ordering), and record one
 * audit record per call, sent after the response. POST /v1/tool-calls, the MCP door's tools/call and
 * webhook deliveries all go through here, so a call is limited, run and audited the same way
 * whichever door it came in by.
 */
import type { RecordBatch } from "../audit/record-batch.ts";
import type { CallInput, CallOutcome, KeyScope } from "../pipeline/types.ts";
import type { chargeCalls } from "../rate-limit/charge-calls.ts";
import { admitAll, type runBatch } from "./run-batch.ts";

/** How a batch's calls are run: the gateway's runBatch, unless the app is built with another. */
export type RunCalls = typeof runBatch;

/**
 * The stages of a batch around the pipeline, built by the composition root (src/compose.ts).
 * The Worker uses the real ones; the benchmark replaces some to measure what each layer costs.
 */
export interface BatchStages {
  runCalls: RunCalls;
  chargeCalls: (...args: Parameters<typeof chargeCalls>) => ReturnType<typeof chargeCalls>;
  recordBatch: RecordBatch;
}

/** Told each call's final outcome and index as soon as it has one (a streamed batch sends it on). */
export type OnResult = (outcome: CallOutcome, index: number) => void;

/**
 * Runs a key's calls through rate limits, the pipeline and the audit log; never rejects. The
 * result has exactly one outcome per call, in order (checked here, where each is audited).
 */
export async function serveCalls(
  calls: readonly CallInput[],
  scope: KeyScope,
  maxParallel: number,
  stages: BatchStages,
  onResult?: OnResult,
): Promise<CallOutcome[]> {
  const { env, config, principal } = scope;
  const admitted = admitAll(calls, scope);
  // Only calls that will reach their handler's stage count against the key's rate limits.
  const chargeable = admitted.map((call) => (call.refused === undefined ? call.input.name : undefined));
  const refusals = await stages.chargeCalls(env, principal, chargeable, config);
  const finishedAt: number[] = [];
  const onOutcome = (outcome: CallOutcome, i: number) => {
    finishedAt[i] = Date.now();
    onResult?.(outcome, i);
  };
  const outcomes = await stages.runCalls(admitted, scope, { maxParallel, batchTimeoutMs: config.batchTimeoutMs, refusals, onOutcome });
  const audited = calls.map((call, i) => {
    const outcome = outcomes[i] ?? missing(call.id);
    // Parsed once, in the pipeline: the record reuses the object, or keeps text that did not parse.
    return { rawArguments: outcome.unparsedArguments ?? outcome.arguments, outcome, finishedAt: finishedAt[i] ?? Date.now(), calledAs: call.calledAs };
  });
  stages.recordBatch(env, scope.waitUntil, audited, {
    keyId: principal.keyId,
    sessionId: scope.sessionId,
    requestId: scope.requestId,
    runId: scope.run?.auditId,
  });
  return outcomes;
}

function missing(id: string): never {
  throw new Error(`batch returned no outcome for call ${id}`);
}
