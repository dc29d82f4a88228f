/**
 * Runs the calls of one batch and returns their outcomes in the model's order.
 *
 * Calls run one after another here, which keeps a write-then-read pair of one batch in the
 * order the model emitted it. The gateway layer replaces this with bounded parallelism that
 * orders only the calls that conflict.
 */
import { dispatchCall, type CallContext, type CallOutcome } from "./handle-function-call.ts";

export interface BatchCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** Dispatches each call with its own call id; never throws. */
export async function runBatch(calls: readonly BatchCall[], base: Omit<CallContext, "callId">): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  for (const call of calls) {
    outcomes.push(await dispatchCall(call.name, call.arguments, { ...base, callId: call.id }));
  }
  return outcomes;
}
