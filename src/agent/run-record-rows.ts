/**
 * A RunRecord as the Run object stores it (run-schema.ts): what is fixed when the run starts, what
 * changes, and its steps, apart. A step used to rewrite the whole record, steps and all, two or
 * three times, so a run's storage work grew with every turn; now a step writes its `state` row,
 * a few hundred bytes, and each finished step once.
 */
import type { RunRecord, RunStep } from "./run-types.ts";

/** The fields a run changes after its start; everything else but `steps` is fixed then. */
const STATE_KEYS = ["status", "updatedAt", "turns", "toolCalls", "usage", "pending", "held", "inflight", "answer", "clientToolCalls", "finishReason", "error", "nextStepAt", "hookNotified"] as const satisfies readonly (keyof RunRecord)[];

type StateKey = (typeof STATE_KEYS)[number];

/** The `state` row: the changing fields, and the step whose calls are still running (stored with them, as its calls may yet change). */
export type StoredState = Pick<RunRecord, StateKey> & { openStep?: RunStep };

/** The `start` row: the record without its changing fields and steps. */
export function fixedOf(record: RunRecord): Record<string, unknown> {
  const fixed: Record<string, unknown> = { ...record };
  for (const key of STATE_KEYS) delete fixed[key];
  delete fixed.steps;
  return fixed;
}

/** How many of the record's steps are finished: all but the last while its calls run. */
export const closedSteps = (record: RunRecord): number => (record.inflight.length === 0 ? record.steps.length : record.steps.length - 1);

/** The `state` row of a record whose first `closed` steps are stored as rows. */
export function stateOf(record: RunRecord, closed: number): StoredState {
  const state = {} as Record<StateKey, unknown>;
  for (const key of STATE_KEYS) state[key] = record[key];
  const open = record.steps[closed];
  return open === undefined ? (state as StoredState) : { ...(state as StoredState), openStep: open };
}

/** The record the three parts make. */
export function joinRecord(fixed: Record<string, unknown>, stored: StoredState, steps: RunStep[]): RunRecord {
  const { openStep, ...state } = stored;
  return { ...fixed, ...state, steps: openStep === undefined ? [...steps] : [...steps, openStep] } as RunRecord;
}
