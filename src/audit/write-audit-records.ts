/** The one writer of audit rows: the queue consumer, the DLQ consumer and the flush fallback use it. */
import type { AuditRecord } from "./audit-record.ts";
import { INSERT_AUDIT_SQL, toRowValues } from "./audit-table.ts";

/** The part of D1 the audit writer and readers use; tests wrap it to inject faults. */
export type AuditDatabase = Pick<D1Database, "prepare" | "batch">;

/**
 * Statements per D1 `batch()`: a queue batch holds at most 100 messages (one record each), so a
 * consumer's batch is always one atomic D1 transaction; a longer list is split.
 */
export const WRITE_CHUNK = 100;

/**
 * Writes records exactly once each: ids already stored are skipped, so writing the same records
 * again (a redelivered message, a retry after a commit whose reply was lost) adds no row.
 * Rejects when D1 does; a chunk is atomic, so a failed chunk wrote nothing.
 */
export async function writeAuditRecords(db: AuditDatabase, records: readonly AuditRecord[]): Promise<void> {
  for (let start = 0; start < records.length; start += WRITE_CHUNK) {
    const chunk = records.slice(start, start + WRITE_CHUNK);
    await db.batch(chunk.map((record) => db.prepare(INSERT_AUDIT_SQL).bind(...toRowValues(record))));
  }
}
