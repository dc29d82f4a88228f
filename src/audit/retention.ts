/** Deletes audit records older than the retention period, or archives them first; the daily cron calls it. */
import type { GatewayConfig } from "../config/config.ts";
import { deleteOlderThan, retentionCutoff } from "../storage/delete-older-than.ts";
import { ARCHIVE_CHUNKS_PER_RUN, type AuditArchiveBucket, archiveAudit } from "./archive-audit.ts";
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
  return withAuditLayout((layout) =>
    deleteOlderThan(db, { table: layout.table, column: "at", cutoff, chunk: DELETE_CHUNK, key: layout.tie === "rid" ? "at, rid" : "rowid" }),
  );
}

/**
 * The daily cron's audit housekeeping. Without the AUDIT_ARCHIVE bucket, retention deletes as
 * before. With it, a record leaves D1 only through archival (written to R2, read back, then
 * deleted), so nothing is deleted unarchived: archival runs at the earlier of the archive age and
 * the retention period, keeping D1's promise of nothing older than retention once the backlog is
 * done, and a record archival could not move (R2 failing) stays in D1 for the next run. Archived
 * objects are kept until an R2 lifecycle rule on `audit/v1/` expires them (docs/scale.md).
 *
 * @example await archiveOrExpireAudit(auditShards(env), env.AUDIT_ARCHIVE, config, controller.scheduledTime);
 */
export async function archiveOrExpireAudit(
  shards: readonly AuditDatabase[],
  bucket: AuditArchiveBucket | undefined,
  config: Pick<GatewayConfig, "auditRetentionDays" | "auditArchiveAfterDays">,
  now: number,
): Promise<number> {
  let moved = 0;
  // The shards share one cron invocation's subrequests, so they share the run's chunk allowance.
  const maxChunks = Math.max(1, Math.floor(ARCHIVE_CHUNKS_PER_RUN / shards.length));
  // One shard's failure (its D1 or R2) must not leave the others unarchived; the run still
  // rejects afterwards, so the scheduler reports it.
  const failures: string[] = [];
  for (const [shard, db] of shards.entries()) {
    try {
      if (bucket === undefined) moved += await deleteExpiredAudit(db, config.auditRetentionDays, now);
      else
        moved += (await archiveAudit(db, bucket, { afterDays: Math.min(config.auditArchiveAfterDays, config.auditRetentionDays), now, shard, maxChunks }))
          .archived;
    } catch (error) {
      failures.push(`shard ${shard}: ${String(error)}`);
    }
  }
  if (failures.length > 0) throw new Error(`audit archival/retention failed (${moved} rows moved or deleted on the others): ${failures.join("; ")}`);
  return moved;
}
