/**
 * A schedule's count of firings in a row that did not complete, and the pause it ends in: a
 * schedule whose runs keep failing (a broken prompt, a model gone) stops spending its key's
 * budget until a person looks, rather than failing on every firing forever.
 */
import type { ScheduleRecord } from "./schedule-types.ts";

/** Runs in a row that did not complete before the schedule pauses itself. */
export const FAILURES_TO_PAUSE = 10;

/** `record` after one more firing that did not complete (`what` says how): counted, paused at the FAILURES_TO_PAUSE-th. */
export function countFailure(record: ScheduleRecord, what: string): ScheduleRecord {
  const failures = record.consecutiveFailures + 1;
  const pause = failures >= FAILURES_TO_PAUSE && record.status === "active";
  return pause
    ? {
        ...record,
        consecutiveFailures: failures,
        status: "paused",
        nextFireAt: null,
        queuedAt: null,
        statusReason: `Paused after ${failures} firings in a row did not complete; the last: ${what}. Fix the cause (the firing log and GET /v1/runs/{id} say what failed), then resume.`,
      }
    : { ...record, consecutiveFailures: failures };
}
