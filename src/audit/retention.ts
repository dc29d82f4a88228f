/** Deletes audit records older than the retention period; the daily cron calls it. */
import { deleteOlderThan, retentionCutoff } from "../storage/delete-older-than.ts";
import { withAuditLayout } from "./audit-layout.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** Rows per DELETE, through the (at, id) index; with 200 per run, a million rows a day. */
const DELETE_CHUNK = 5_000;

/**
 * Deletes records whose `at` is more than `retentionDays` before `now` (epoch ms); returns how
 * many it deleted.
 *
 * @example await deleteExpiredAudit(env.DB, config.auditRetentionDays, controller.scheduledTime);
 */
export async function deleteExpiredAudit(db: AuditDatabase, retentionDays: number, now: number): Promise<number> {
  const cutoff = retentionCutoff(retentionDays, now);
  return withAuditLayout((layout) => deleteOlderThan(db, { table: layout.table, column: "at", cutoff, chunk: DELETE_CHUNK, key: layout.tie === "rid" ? "at, rid" : "rowid" }));
}
