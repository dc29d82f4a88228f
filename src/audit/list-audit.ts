/** Pages of audit records, newest first, with a keyset cursor on (at, id). */
import type { AuditRecord } from "./audit-record.ts";
import { filterSql, type AuditFilters } from "./audit-filters.ts";
import { AUDIT_TABLE, fromRow, type AuditRow } from "./audit-table.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** The position after the last record of a page. */
export interface AuditCursor {
  at: number;
  id: string;
}

export interface AuditPage {
  records: AuditRecord[];
  /** Where the next page starts; null on the last page. */
  next: AuditCursor | null;
}

/**
 * One page of records matching `filters`, newest first. A keyset cursor (not an offset) means a
 * page never repeats or skips a record when newer records arrive between requests; the id breaks
 * ties between records of the same millisecond.
 */
export async function listAudit(db: AuditDatabase, filters: AuditFilters, page: { limit: number; cursor?: AuditCursor }): Promise<AuditPage> {
  const { where, params } = filterSql(filters);
  let sql = `SELECT * FROM ${AUDIT_TABLE}${where}`;
  if (page.cursor !== undefined) {
    sql += `${where === "" ? " WHERE" : " AND"} (at, id) < (?, ?)`;
    params.push(page.cursor.at, page.cursor.id);
  }
  // One extra row says whether another page exists without a COUNT.
  sql += " ORDER BY at DESC, id DESC LIMIT ?";
  params.push(page.limit + 1);
  const { results } = await db.prepare(sql).bind(...params).all<AuditRow>();
  const records = results.slice(0, page.limit).map(fromRow);
  const last = records.at(-1);
  return { records, next: results.length > page.limit && last !== undefined ? { at: last.at, id: last.id } : null };
}
