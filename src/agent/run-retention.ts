/**
 * Deletes rows of the runs index (D1) past RUN_RETENTION_DAYS, and their session_search
 * documents; the daily cron calls it. Each Run
 * object deletes its own storage on the same clock (run-object.ts, an alarm set when the run
 * finishes), so a listing and GET /v1/runs/{id} forget a run together, give or take a day.
 *
 * The age is `updated_at`, the run's last change: a finished run's row stops changing then. A row
 * of any status goes, because no run can still be going that long after its last change (its
 * deadline and the approvals' expiry end it first), and a run that does change later writes its
 * row again (writeRunIndex upserts).
 */
import { deleteOlderThan, retentionCutoff } from "../storage/delete-older-than.ts";
import { RUNS_TABLE } from "./run-index.ts";
import { deleteExpiredSearch } from "./run-search.ts";

/** The index the chunked delete ranges over (migrations/0010_runs_retention.sql). */
export const RUNS_UPDATED_INDEX = "runs_updated";

/** Rows per DELETE, through RUNS_UPDATED_INDEX. */
const DELETE_CHUNK = 1_000;

/**
 * Deletes runs not updated for `retentionDays` before `now`; returns how many.
 *
 * @example await deleteExpiredRuns(env.DB, config.runRetentionDays, controller.scheduledTime);
 */
export async function deleteExpiredRuns(db: Pick<D1Database, "prepare">, retentionDays: number, now: number): Promise<number> {
  const cutoff = retentionCutoff(retentionDays, now);
  const deleted = await deleteOlderThan(db, { table: RUNS_TABLE, column: "updated_at", cutoff, chunk: DELETE_CHUNK });
  // Their session_search documents, on the same clock (not a trigger: the bench's migration
  // runner splits statements at `;`, which a trigger's body holds).
  await deleteExpiredSearch(db, cutoff);
  return deleted;
}
