/**
 * The record a run starts with: what its start asked for, and every counter, list and outcome
 * empty. Kept apart from the Run object so the object reads as its lifecycle, not its fields.
 */
import type { RunRecord, RunStart } from "./run-types.ts";

/** A new run's record, `running` with its first step due at `now` (the start's messages go to the transcript, not the record). */
export function newRunRecord(start: Omit<RunStart, "messages">, now: number): RunRecord {
  return {
    ...start,
    status: "running",
    createdAt: now,
    updatedAt: now,
    turns: 0,
    toolCalls: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    steps: [],
    pending: [],
    held: [],
    inflight: [],
    answer: null,
    clientToolCalls: [],
    finishReason: null,
    error: null,
    nextStepAt: now,
  };
}
