/**
 * The core pipeline without the gateway layer, as the reference for what that layer (runBatch,
 * then execute with its breaker, deadline timer, retry loop and upstream fetch) costs. The
 * bench Worker's core app is built on parts with `runCalls: coreRunCalls` and
 * `execute: directExecutor`, so it shares the route, its body validation and the /v1/* body
 * limit with the gateway app, and differs only in these.
 */
// This module runs in workerd; Env, through the scope, is a Worker global.
/// <reference path="../../worker-configuration.d.ts" />
import type { RunCalls } from "../../src/batch/serve-calls.ts";
import { AttemptContext } from "../../src/execution/attempt-context.ts";
import type { Executor } from "../../src/execution/execute.ts";
import { runHandler } from "../../src/execution/run-handler.ts";
import { endUnrun, runCall } from "../../src/pipeline/run-call.ts";
import type { CallOutcome } from "../../src/pipeline/types.ts";

/**
 * `execute` without its policies: exactly one plain attempt, with the request's signal (or one
 * that never fires, made when the handler asks) and the platform's fetch, as the core pipeline
 * ran handlers before the gateway layer.
 */
export const directExecutor: Executor = async function directExecutor(entry, args, base, parent, policy) {
  // Made when the handler asks, as execute does: making the request's signal costs CPU.
  const context = new AttemptContext(base, 1, policy.deadlineAt, {
    signal: () => parent.signal ?? new AbortController().signal,
    fetch: () => globalThis.fetch.bind(globalThis),
  });
  const run = await runHandler(entry, args, context);
  return { run, attempts: 1 };
};

/**
 * Runs a batch's admitted calls one after another through the pipeline and returns their
 * outcomes in order: no plan, no parallelism, no batch deadline. What the route asks of any
 * runner it keeps: calls it refused up front (rate limits) are answered with that refusal, and
 * `onOutcome` hears of every call, so both apps answer and audit alike.
 */
export const coreRunCalls: RunCalls = async function coreRunCalls(calls, scope, { refusals, onOutcome }) {
  const outcomes: CallOutcome[] = [];
  for (const [i, call] of calls.entries()) {
    const refusal = refusals?.[i];
    const outcome = refusal === undefined ? await runCall(call, scope) : await endUnrun(call, refusal, scope);
    onOutcome?.(outcome, i);
    outcomes.push(outcome);
  }
  return outcomes;
};
