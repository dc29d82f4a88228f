/**
 * Runs in the bench Worker: how many rows D1 writes per audit record, which is what D1 bills
 * (every index a row enters is one more row written). Two counts, so a schema change is
 * measured whatever it looks like:
 * - D1's own: the `meta.rows_written` of the batch the real writer (writeAuditRecords) sends,
 *   read through a wrapper around the binding that passes every call on unchanged. Used only
 *   when the wrapper saw every record inserted (a writer that stops using `batch` is not
 *   metered, and then this count is null rather than wrong).
 * - the schema's: one for the table plus one per index on it, a partial index counting the
 *   share of the written rows its WHERE clause takes (rows matching it before and after the
 *   write, so it needs no knowledge of the table's key; WITHOUT ROWID tables included).
 */
// tsconfig.node.json checks scripts/ with Node's types only; this file runs in workerd.
/// <reference path="../../worker-configuration.d.ts" />
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { type AuditDatabase, writeAuditRecords } from "../../src/audit/write-audit-records.ts";

export interface RowsWritten {
  records: number;
  /** D1's meta.rows_written over the writer's batch, per record; null when it was not all seen. */
  perRecord: number | null;
  /** Table plus the indexes the written rows entered, per record. */
  fromSchema: number;
  /** The indexes on the table, as sqlite_master names them (autoindexes included). */
  indexes: string[];
}

interface IndexRow {
  name: string;
  sql: string | null;
}

/** The WHERE clause of a partial index's CREATE INDEX; undefined for a full index or an autoindex. */
function partialWhere(index: IndexRow): string | undefined {
  return index.sql === null ? undefined : /\bWHERE\b([\s\S]*)$/i.exec(index.sql)?.[1];
}

/** Rows of the audit table each partial index takes now, by index name. */
async function partialCounts(db: D1Database, indexes: readonly IndexRow[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const index of indexes) {
    const where = partialWhere(index);
    if (where !== undefined) counts.set(index.name, (await db.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE ${where}`).first<number>("n")) ?? 0);
  }
  return counts;
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
  const { results: indexes } = await db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").bind(AUDIT_TABLE).all<IndexRow>();
  const before = await partialCounts(db, indexes);
  await writeAuditRecords(metered, records);
  const after = await partialCounts(db, indexes);
  // An autoindex (a UNIQUE or TEXT PRIMARY KEY constraint) has no SQL and takes every row.
  const fullIndexes = indexes.filter((index) => partialWhere(index) === undefined).length;
  const partialRows = [...after].reduce((sum, [name, n]) => sum + n - (before.get(name) ?? 0), 0);
  return {
    records: records.length,
    // Changes count the rollup rows too (one per hour, tool, key and error code of the batch).
    perRecord: changes >= records.length ? rowsWritten / records.length : null,
    fromSchema: 1 + fullIndexes + partialRows / records.length,
    indexes: indexes.map((i) => i.name),
  };
}
