/**
 * One firing as the Schedule object stores it before starting its run: the record naming the
 * firing and its run, and the firing's log entry, written in one put (schedule-store.ts). Kept
 * apart from the object so a test can put an object in exactly the state a firing leaves when
 * its instance dies before the run starts.
 */
import type { FiringEntry, ScheduleRecord } from "./schedule-types.ts";

/** The run id of one firing: the same schedule and time always name the same run. */
export const firingRunId = (scheduleId: string, at: number): string => `sched-${scheduleId}-${at}`;

/** A log entry of a firing time. */
export function firingEntry(at: number, outcome: FiringEntry["outcome"], fields: { runId?: string; note?: string | null; late?: boolean } = {}): FiringEntry {
  return { at, outcome, runId: fields.runId ?? null, runStatus: null, note: fields.note ?? null, late: fields.late ?? false };
}

/** The record and log entry of a firing at `at` whose run is about to start, `now` being the start. */
export function storedFiring(record: ScheduleRecord, at: number, late: boolean, now: number): { record: ScheduleRecord; entry: FiringEntry } {
  const runId = firingRunId(record.id, at);
  const note = late ? `late: due ${new Date(at).toISOString()}, started ${new Date(now).toISOString()}` : null;
  return {
    record: { ...record, firing: { at, runId, late }, currentRunId: runId, updatedAt: now },
    entry: firingEntry(at, "started", { runId, note, late }),
  };
}
