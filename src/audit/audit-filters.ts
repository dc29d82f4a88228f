/** The filters audit queries share, and the one place they become SQL. */
import type { AuditStatus } from "./audit-record.ts";

export interface AuditFilters {
  keyId?: string;
  sessionId?: string;
  tool?: string;
  status?: AuditStatus;
  errorCode?: string;
  /** Inclusive lower bound on `at`, epoch ms. */
  since?: number;
  /** Exclusive upper bound on `at`, epoch ms. */
  until?: number;
  /**
   * The caller's scope: only this key's records, whatever `keyId` asks for. Applied as its own
   * condition, so asking for another key's records yields none rather than that key's data.
   */
  scopeKeyId?: string;
}

/** SQL conditions and their bound values, in order. */
export interface FilterSql {
  conditions: string[];
  params: (string | number)[];
}

/**
 * The filters an index serves (key, session, the time window: the primary key is `at` first)
 * and the ones it does not (tool, status, error code), apart: list-audit.ts bounds how many rows
 * a page may read to apply the second kind.
 */
export function filterSql(filters: AuditFilters): { indexed: FilterSql; residual: FilterSql } {
  const indexed: FilterSql = { conditions: [], params: [] };
  const residual: FilterSql = { conditions: [], params: [] };
  const add = (to: FilterSql, sql: string, value: string | number | undefined) => {
    if (value === undefined) return;
    to.conditions.push(sql);
    to.params.push(value);
  };
  add(indexed, "key_id = ?", filters.scopeKeyId);
  add(indexed, "key_id = ?", filters.keyId);
  add(indexed, "session_id = ?", filters.sessionId);
  add(indexed, "at >= ?", filters.since);
  add(indexed, "at < ?", filters.until);
  add(residual, "tool = ?", filters.tool);
  add(residual, "status = ?", filters.status);
  add(residual, "error_code = ?", filters.errorCode);
  return { indexed, residual };
}

/** ` WHERE ...` (or empty) of every filter, and its bound values. */
export function whereSql(filters: AuditFilters): { where: string; params: (string | number)[] } {
  const { indexed, residual } = filterSql(filters);
  const conditions = [...indexed.conditions, ...residual.conditions];
  return { where: conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`, params: [...indexed.params, ...residual.params] };
}
