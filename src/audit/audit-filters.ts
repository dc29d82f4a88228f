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

/** ` WHERE ...` (or empty) and its bound values, in order. */
export function filterSql(filters: AuditFilters): { where: string; params: (string | number)[] } {
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, value: string | number | undefined) => {
    if (value === undefined) return;
    conditions.push(sql);
    params.push(value);
  };
  add("key_id = ?", filters.scopeKeyId);
  add("key_id = ?", filters.keyId);
  add("session_id = ?", filters.sessionId);
  add("tool = ?", filters.tool);
  add("status = ?", filters.status);
  add("error_code = ?", filters.errorCode);
  add("at >= ?", filters.since);
  add("at < ?", filters.until);
  return { where: conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`, params };
}
