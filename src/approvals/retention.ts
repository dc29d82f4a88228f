/**
 * Deletes settled approvals from the D1 index past APPROVAL_RETENTION_DAYS; the daily cron calls
 * it. Pending rows are never deleted (an approval can wait up to a week). The decisions stay in
 * the audit log for its own retention, and each Session object keeps its own rows, so a repeated
 * tool call id still gets its stored outcome; only listings and the id lookup of
 * GET /v1/approvals/{id} forget an approval.
 */
import { deleteOlderThan, retentionCutoff } from "../storage/delete-older-than.ts";
import { APPROVALS_TABLE } from "./approval-index.ts";

/** Rows per DELETE, through the (requested_at, id) index. */
const DELETE_CHUNK = 1_000;

/**
 * Deletes approvals requested more than `retentionDays` before `now` and no longer pending.
 *
 * @example await deleteSettledApprovals(env.DB, config.approval.retentionDays, controller.scheduledTime);
 */
export async function deleteSettledApprovals(db: Pick<D1Database, "prepare">, retentionDays: number, now: number): Promise<number> {
  return deleteOlderThan(db, {
    table: APPROVALS_TABLE,
    column: "requested_at",
    cutoff: retentionCutoff(retentionDays, now),
    where: "status <> 'pending'",
    chunk: DELETE_CHUNK,
  });
}
