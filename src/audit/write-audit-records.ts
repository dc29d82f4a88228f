/** The one writer of audit rows: the queue consumers and the flush fallback use it. */

import type { AuditDatabase } from "./audit-database.ts";
import { withAuditLayout } from "./audit-layout.ts";
import type { AuditRecord } from "./audit-record.ts";
import { toRowValues } from "./audit-table.ts";

export type { AuditDatabase } from "./audit-database.ts";

/**
 * Characters of row JSON per statement. D1 takes a bound value of up to 2 MB and UTF-8 needs at
 * most 3 bytes per character, so a statement's one parameter always fits.
 */
const WRITE_CHUNK_CHARS = 600_000;

/**
 * Writes rows exactly once each: rows already stored are skipped, so writing the same rows again
 * (a redelivered message, a retry after a commit whose reply was lost) adds none.
 *
 * `rowLists` are JSON texts of one or more rows (AuditRowValues) separated by commas, without
 * brackets: a row made here, or the rows of a queue message as they arrived, bound without being
 * parsed. They go in as one JSON parameter per statement (INSERT ... SELECT FROM json_each), not
 * one statement per row: a statement costs the same fixed work in D1 whatever it carries, and D1
 * allows only 100 bound parameters. All statements are one D1 batch, which is atomic: it rejects
 * having written nothing. The same batch keeps the hourly rollups (audit-rollups.ts). Resolves to
 * the rows written, as D1 counts them (table, indexes and rollups).
 */
export async function writeAuditRowLists(db: AuditDatabase, rowLists: readonly string[]): Promise<number> {
  const chunks: string[] = [];
  let current: string[] = [];
  let chars = 0;
  for (const rows of rowLists) {
    if (rows === "") continue;
    if (current.length > 0 && chars + rows.length > WRITE_CHUNK_CHARS) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      chars = 0;
    }
    current.push(rows);
    chars += rows.length + 1;
  }
  if (current.length > 0) chunks.push(`[${current.join(",")}]`);
  if (chunks.length === 0) return 0;
  // Each chunk's rollup upserts run before its INSERT, so they see exactly the rows it will add.
  const results = await withAuditLayout((layout) =>
    db.batch(chunks.flatMap((rows) => [...layout.rollupSql, layout.insertSql].map((sql) => db.prepare(sql).bind(rows)))),
  );
  return results.reduce((sum, result) => sum + (result.meta?.rows_written ?? 0), 0);
}

/** Writes records exactly once each (see writeAuditRowLists). */
export async function writeAuditRecords(db: AuditDatabase, records: readonly AuditRecord[]): Promise<number> {
  return writeAuditRowLists(
    db,
    records.map((record) => JSON.stringify(toRowValues(record))),
  );
}
