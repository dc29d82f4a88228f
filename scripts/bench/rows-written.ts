/**
 * Runs in the bench Worker: how many rows D1 writes per audit record, which is what D1 bills
 * (every index a row enters is one more row written). Two counts, so a schema change is
 * measured whatever it looks like:
 * - D1's own: the `meta.rows_written` of the batch the real writer (writeAuditRecords) sends,
 *   read through a wrapper around the binding that passes every call on unchanged. Used only
 *   when the wrapper saw every record inserted (a writer that stops using `batch` is not
 *   metered, and then this count is null rather than wrong).
 * - the schema's: one for the table plus one per index on it, a partial index counting only
 *   when the last written row satisfies its WHERE clause.
 */
// tsconfig.node.json checks scripts/ with Node's types only; this file runs in workerd.
/// <reference path="../../worker-configuration.d.ts" />
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { writeAuditRecords, type AuditDatabase } from "../../src/audit/write-audit-records.ts";

export interface RowsWritten {
  records: number;
  /** D1's meta.rows_written over the writer's batch, per record; null when it was not all seen. */
  perRecord: number | null;
  /** Table plus the indexes the last written row entered. */
  fromSchema: number;
  /** The indexes on the table, as sqlite_master names them (autoindexes included). */
  indexes: string[];
}

interface IndexRow {
  name: string;
  sql: string | null;
}

/** Writes `records` with the real writer and counts the rows each cost. */
export async function measureRowsWritten(db: D1Database, records: readonly AuditRecord[]): Promise<RowsWritten> {
  let rowsWritten = 0;
  let changes = 0;
  const metered: AuditDatabase = {
    prepare: (sql) => db.prepare(sql),
    async batch<T>(statements: D1PreparedStatement[]) {
      const results = await db.batch<T>(statements);
      for (const { meta } of results) {
        rowsWritten += meta.rows_written;
        changes += meta.changes;
      }
      return results;
    },
  };
  await writeAuditRecords(metered, records);
  const { results: indexes } = await db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").bind(AUDIT_TABLE).all<IndexRow>();
  let fromSchema = 1;
  for (const index of indexes) {
    // An autoindex (a UNIQUE or TEXT PRIMARY KEY constraint) has no SQL and takes every row.
    const where = index.sql === null ? undefined : /\bWHERE\b([\s\S]*)$/i.exec(index.sql)?.[1];
    if (where === undefined) {
      fromSchema += 1;
      continue;
    }
    const sql = `SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE rowid = (SELECT MAX(rowid) FROM ${AUDIT_TABLE}) AND (${where})`;
    fromSchema += (await db.prepare(sql).first<number>("n")) ?? 0;
  }
  return { records: records.length, perRecord: changes === records.length ? rowsWritten / records.length : null, fromSchema, indexes: indexes.map((i) => i.name) };
}
