/** Pages of audit records, newest first, with a keyset cursor on (at, rid). */

import { type AuditFilters, type FilterSql, filterSql } from "./audit-filters.ts";
import { type AuditLayout, withAuditLayout } from "./audit-layout.ts";
import type { AuditRecord } from "./audit-record.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** The position after the last record a page read: `at`, then the layout's tie-breaker. */
export interface AuditCursor {
  at: number;
  tie: number | string;
}

export interface AuditPage {
  records: AuditRecord[];
  /** Where the next page starts; null when no record is left to read. */
  next: AuditCursor | null;
}

/**
 * Rows a page may read to apply the filters no index serves (tool, status, error code). Those
 * indexes cost a row written on every call (migrations/0005_audit_records.sql), so instead a page
 * walks at most this many rows of the key's, the session's or the time window's range; when it
 * finds fewer matches than asked, `next` still points past what it read, and the client pages on.
 */
export const RESIDUAL_SCAN_ROWS = 5_000;

/**
 * One page of records matching `filters`, newest first. A keyset cursor (not an offset) means a
 * page never repeats or skips a record when newer records arrive between requests; the tie-breaker
 * orders records of the same millisecond. A page can hold fewer records than `limit` (even none)
 * and still have a `next`, when its filters need a bounded scan (RESIDUAL_SCAN_ROWS).
 */
export function listAudit(db: AuditDatabase, filters: AuditFilters, page: { limit: number; cursor?: AuditCursor }): Promise<AuditPage> {
  return withAuditLayout((layout) => listIn(db, layout, filters, page));
}

/** The statements a page runs, exported for the query-plan tests. */
export function listStatements(layout: AuditLayout, filters: AuditFilters, page: { limit: number; cursor?: AuditCursor }) {
  const { indexed, residual } = filterSql(filters);
  const range: FilterSql = { conditions: [...indexed.conditions], params: [...indexed.params] };
  if (page.cursor !== undefined) {
    range.conditions.push(`(at, ${layout.tie}) < (?, ?)`);
    range.params.push(page.cursor.at, page.cursor.tie);
  }
  const order = `ORDER BY at DESC, ${layout.tie} DESC`;
  const where = (f: FilterSql) => (f.conditions.length === 0 ? "" : ` WHERE ${f.conditions.join(" AND ")}`);
  if (residual.conditions.length === 0 || layout.indexesEveryFilter) {
    const all: FilterSql = { conditions: [...range.conditions, ...residual.conditions], params: [...range.params, ...residual.params] };
    return { bounded: false, page: { sql: `SELECT * FROM ${layout.table}${where(all)} ${order} LIMIT ?`, params: [...all.params, page.limit + 1] } };
  }
  const scanned = `SELECT * FROM ${layout.table}${where(range)} ${order} LIMIT ${RESIDUAL_SCAN_ROWS}`;
  return {
    bounded: true,
    page: { sql: `SELECT * FROM (${scanned})${where(residual)} ${order} LIMIT ?`, params: [...range.params, ...residual.params, page.limit + 1] },
    // The last row the page's scan read, if it read its whole allowance: where the next page resumes.
    edge: {
      sql: `SELECT at, ${layout.tie} AS tie FROM ${layout.table}${where(range)} ${order} LIMIT 1 OFFSET ${RESIDUAL_SCAN_ROWS - 1}`,
      params: range.params,
    },
  };
}

async function listIn(db: AuditDatabase, layout: AuditLayout, filters: AuditFilters, page: { limit: number; cursor?: AuditCursor }): Promise<AuditPage> {
  const statements = listStatements(layout, filters, page);
  const { results } = await db
    .prepare(statements.page.sql)
    .bind(...statements.page.params)
    .all<Record<string, unknown>>();
  const rows = results.slice(0, page.limit);
  const last = rows.at(-1);
  if (results.length > page.limit && last !== undefined) return { records: rows.map(layout.fromRow), next: cursorOf(layout, last) };
  if (statements.edge === undefined) return { records: rows.map(layout.fromRow), next: null };
  const edge = await db
    .prepare(statements.edge.sql)
    .bind(...statements.edge.params)
    .first<{ at: number; tie: number | string }>();
  return { records: rows.map(layout.fromRow), next: edge === null ? null : { at: edge.at, tie: edge.tie } };
}

function cursorOf(layout: AuditLayout, row: Record<string, unknown>): AuditCursor {
  return { at: row.at as number, tie: row[layout.tie] as number | string };
}
