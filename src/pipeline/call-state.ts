/** A call's state before any stage has run: what `admit` starts from, and the approvals layer's records. */
import type { CallInput, CallRun, CallState } from "./types.ts";

const NO_RUN: CallRun = Object.freeze({ dependencyResults: undefined, batch: undefined, approved: undefined });

export function newCallState(input: CallInput, run: CallRun = NO_RUN): CallState {
  return {
    input,
    run,
    startedAt: Date.now(),
    sentArgs: {},
    parsed: false,
    args: {},
    entry: undefined,
    policy: undefined,
    coercions: [],
    attempts: 0,
    refused: undefined,
    credential: undefined,
  };
}
