/** The one writer of audit rows: the queue consumer, the DLQ consumer and the flush fallback use it. */
import type { AuditRecord } from "./audit-record.ts";
import { INSERT_AUDIT_ROWS_SQL, toRowValues } from "./audit-table.ts";

/** The part of D1 the audit writer and readers use; tests wrap it to inject faults. */
export type AuditDatabase = Pick<D1Database, "prepare" | "batch">;

/**
 * Characters of row JSON per statement. D1 takes a bound value of up to 2 MB and UTF-8 needs at
 * most 3 bytes per character, so a statement's one parameter always fits.
 */
const WRITE_CHUNK_CHARS = 600_000;

/**
 * Writes records exactly once each: ids already stored are skipped, so writing the same records
 * again (a redelivered message, a retry after a commit whose reply was lost) adds no row.
 *
 * The rows go in as one JSON parameter per statement (INSERT ... SELECT FROM json_each), not one
 * statement per row: a statement costs the same fixed work in D1 whatever it carries, and D1
 * allows only 100 bound parameters, about four rows' worth. All statements are one D1 batch,
 * which is atomic: it rejects having written nothing.
 */
export async function writeAuditRecords(db: AuditDatabase, records: readonly AuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  const chunks: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const record of records) {
    const row = JSON.stringify(toRowValues(record));
    if (current.length > 0 && chars + row.length > WRITE_CHUNK_CHARS) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(row);
    chars += row.length;
  }
  chunks.push(current);
  await db.batch(chunks.map((rows) => db.prepare(INSERT_AUDIT_ROWS_SQL).bind(`[${rows.join(",")}]`)));
}
