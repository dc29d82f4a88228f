/**
 * Which table the audit log reads and writes: audit_records (migration 0005) or, on a database
 * that migration has not reached yet, audit_log. Every reader and writer goes through
 * `withAuditLayout`, which tries the current table and falls back only when it does not exist,
 * so a Worker deployed ahead of its migration loses nothing and answers the same.
 */
import type { AuditRecord } from "./audit-record.ts";
import { AUDIT_ROLLUPS_TABLE, ROLLUP_STATEMENTS_SQL } from "./audit-rollups.ts";
import {
  AUDIT_TABLE,
  type AuditRow,
  fromRow,
  INSERT_AUDIT_ROWS_SQL,
  INSERT_AUDIT_ROWS_WITHOUT_CALLED_AS_SQL,
  INSERT_AUDIT_ROWS_WITHOUT_CREDENTIAL_SQL,
  INSERT_AUDIT_ROWS_WITHOUT_REQUEST_ID_SQL,
  INSERT_AUDIT_ROWS_WITHOUT_RUN_ID_SQL,
} from "./audit-table.ts";
import { fromLegacyRow, LEGACY_AUDIT_TABLE, LEGACY_INSERT_AUDIT_ROWS_SQL, type LegacyAuditRow } from "./legacy-audit-table.ts";

export interface AuditLayout {
  readonly table: string;
  /** Orders the records of one millisecond after `at`, and is the cursor's second half. */
  readonly tie: "rid" | "id";
  /** Takes one parameter: a JSON array of AuditRowValues. */
  readonly insertSql: string;
  /** Run before insertSql with the same parameter, in its batch: the hourly rollups' upserts (audit-rollups.ts). */
  readonly rollupSql: readonly string[];
  /** Whether tool, status and error code have indexes of their own (the legacy table's six). */
  readonly indexesEveryFilter: boolean;
  /** Whether rows keep the failure's message (audit_records does; audit_log did not). */
  readonly keepsMessages: boolean;
  fromRow(row: Record<string, unknown>): AuditRecord;
}

export const CURRENT_LAYOUT: AuditLayout = {
  table: AUDIT_TABLE,
  tie: "rid",
  insertSql: INSERT_AUDIT_ROWS_SQL,
  rollupSql: ROLLUP_STATEMENTS_SQL,
  indexesEveryFilter: false,
  keepsMessages: true,
  // biome-ignore lint/plugin/no-double-cast: a row D1 read from audit_records, whose columns are AuditRow's; D1 returns rows untyped
  fromRow: (row) => fromRow(row as unknown as AuditRow),
};

/** audit_records before 0012_audit_rollups.sql: the same, without rollups to write. */
export const PRE_ROLLUPS_LAYOUT: AuditLayout = { ...CURRENT_LAYOUT, rollupSql: [] };
/** audit_records before 0006_request_ids.sql: without the request_id and run_id columns to write. */
export const PRE_REQUEST_ID_LAYOUT: AuditLayout = { ...PRE_ROLLUPS_LAYOUT, insertSql: INSERT_AUDIT_ROWS_WITHOUT_REQUEST_ID_SQL };
/** audit_records after 0006 but before 0007_agent_runs.sql: without the run_id column to write. */
export const PRE_RUN_ID_LAYOUT: AuditLayout = { ...PRE_ROLLUPS_LAYOUT, insertSql: INSERT_AUDIT_ROWS_WITHOUT_RUN_ID_SQL };
/** audit_records after 0007 but before 0015_audit_credentials.sql: without the credential column to write (rollups kept when 0012 ran). */
export const PRE_CREDENTIAL_LAYOUT: AuditLayout = { ...CURRENT_LAYOUT, insertSql: INSERT_AUDIT_ROWS_WITHOUT_CREDENTIAL_SQL };
/** audit_records after 0015 but before 0016_audit_called_as.sql: without the called_as column to write. */
export const PRE_CALLED_AS_LAYOUT: AuditLayout = { ...CURRENT_LAYOUT, insertSql: INSERT_AUDIT_ROWS_WITHOUT_CALLED_AS_SQL };

export const LEGACY_LAYOUT: AuditLayout = {
  table: LEGACY_AUDIT_TABLE,
  tie: "id",
  insertSql: LEGACY_INSERT_AUDIT_ROWS_SQL,
  rollupSql: [],
  indexesEveryFilter: true,
  keepsMessages: false,
  // biome-ignore lint/plugin/no-double-cast: a row D1 read from audit_log, whose columns are LegacyAuditRow's; D1 returns rows untyped
  fromRow: (row) => fromLegacyRow(row as unknown as LegacyAuditRow),
};

/**
 * Runs `work` against the current table, or against the legacy one while only that exists, or
 * without request ids while 0006 has not added their column, without run ids while 0007 has
 * not, without credentials while 0015 has not, without the called-as name while 0016 has not
 * (reads use `SELECT *`, so only the INSERT names them), or without rollups while 0012 has not made their tables (its migration then counts the
 * rows already stored).
 */
export async function withAuditLayout<T>(work: (layout: AuditLayout) => Promise<T>): Promise<T> {
  try {
    return await work(CURRENT_LAYOUT);
  } catch (error) {
    const message = String(error);
    if (message.includes(`no such table: ${AUDIT_ROLLUPS_TABLE}`))
      return withAuditLayout((layout) => work(layout.table === AUDIT_TABLE ? { ...layout, rollupSql: [] } : layout));
    if (message.includes("no column named request_id")) return work(PRE_REQUEST_ID_LAYOUT);
    if (message.includes("no column named run_id")) return work(PRE_RUN_ID_LAYOUT);
    if (message.includes("no column named credential")) return work(PRE_CREDENTIAL_LAYOUT);
    if (message.includes("no column named called_as")) return work(PRE_CALLED_AS_LAYOUT);
    if (!message.includes(`no such table: ${AUDIT_TABLE}`)) throw error;
    return work(LEGACY_LAYOUT);
  }
}
