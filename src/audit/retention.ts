/** Deletes audit records older than the retention period; the daily cron calls it. */
import { AUDIT_TABLE } from "./audit-table.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

const DAY_MS = 86_400_000;
/**
 * Rows per DELETE, and DELETEs per run. Small statements keep each well under D1's per-query
 * time limit; a backlog bigger than one run (a million rows) finishes on the following days.
 */
const DELETE_CHUNK = 5_000;
const MAX_CHUNKS_PER_RUN = 200;

/**
 * Deletes records whose `at` is more than `retentionDays` before `now` (epoch ms); returns how
 * many it deleted.
 *
 * @example await deleteExpiredAudit(env.DB, config.auditRetentionDays, controller.scheduledTime);
 */
export async function deleteExpiredAudit(db: AuditDatabase, retentionDays: number, now: number): Promise<number> {
  if (!Number.isFinite(retentionDays) || retentionDays <= 0) throw new RangeError(`retentionDays must be a positive number, got ${retentionDays}`);
  const cutoff = now - retentionDays * DAY_MS;
  // D1's SQLite has no DELETE ... LIMIT, so each chunk picks its rowids through the (at, id) index.
  const statement = db.prepare(`DELETE FROM ${AUDIT_TABLE} WHERE rowid IN (SELECT rowid FROM ${AUDIT_TABLE} WHERE at < ? LIMIT ?)`);
  let deleted = 0;
  for (let i = 0; i < MAX_CHUNKS_PER_RUN; i++) {
    const result = await statement.bind(cutoff, DELETE_CHUNK).run();
    deleted += result.meta.changes;
    if (result.meta.changes < DELETE_CHUNK) break;
  }
  return deleted;
}
