/**
 * The core pipeline without the gateway layer, as the reference for what that layer (runBatch,
 * then execute with its breaker, deadline timer, retry loop and upstream fetch) costs. The
 * bench Worker's core app is built with `stages: { runCalls: coreRunCalls }`, so it shares the
 * route, its body validation and the /v1/* body limit with the gateway app, and differs only in this.
 */
// This module runs in workerd; Env, through CallContext, is a Worker global.
/// <reference path="../../worker-configuration.d.ts" />
import { dispatchCall, settleUnrun, type CallOutcome } from "../../src/dispatch/handle-function-call.ts";
import { runHandler } from "../../src/execution/run-handler.ts";
import type { execute } from "../../src/execution/execute.ts";
import type { RunCalls } from "../../src/http/routes/tool-calls.ts";

/**
 * `execute` without its policies: exactly one plain attempt, with the request's signal (or one
 * that never fires) and the platform's fetch, as the core pipeline ran handlers before the
 * gateway layer.
 */
export const directExecutor: typeof execute = async function directExecutor(entry, args, base, parent) {
  const signal = parent ?? new AbortController().signal;
  const run = await runHandler(entry, args, { ...base, attempt: 1, signal, fetch: globalThis.fetch.bind(globalThis) });
  return { run, attempts: 1 };
};

/**
 * Runs a batch's calls one after another through `dispatchCall` with `directExecutor` and
 * returns their outcomes in order: no plan, no parallelism, no batch deadline. What the route
 * asks of any runner it keeps: calls it refused up front (rate limits) are answered with that
 * refusal, and `onOutcome` hears of every call, so both apps answer and audit alike.
 */
export const coreRunCalls: RunCalls = async function coreRunCalls(calls, base, { refusals, onOutcome }) {
  const outcomes: CallOutcome[] = [];
  for (const [i, call] of calls.entries()) {
    const context = { ...base, callId: call.id, executor: directExecutor };
    const refusal = refusals?.[i];
    const outcome = refusal === undefined ? await dispatchCall(call.name, call.arguments, context) : await settleUnrun(call.name, call.arguments, context, refusal);
    onOutcome?.(outcome, i);
    outcomes.push(outcome);
  }
  return outcomes;
};
