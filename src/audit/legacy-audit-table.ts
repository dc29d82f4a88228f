/**
 * The audit table as migrations 0001 and 0003 made it (`audit_log`: a random TEXT primary key
 * and six secondary indexes), which a database keeps until 0005_audit_records.sql has run. A
 * Worker deployed before the migration is applied writes and reads it here, so nothing is lost
 * and the API keeps answering in between; the migration then moves its rows and drops it.
 */
import { type AuditRecord, MAX_RID } from "./audit-record.ts";
import { AUDIT_COLUMNS, type AuditRow, fromRow } from "./audit-table.ts";

export const LEGACY_AUDIT_TABLE = "audit_log";

/** The columns audit_log has, each read from the new row's position (AUDIT_COLUMNS). */
const LEGACY_COLUMNS = AUDIT_COLUMNS.filter(
  (column) =>
    column !== "rid" && column !== "error_message" && column !== "request_id" && column !== "run_id" && column !== "credential" && column !== "called_as",
);
const position = (column: (typeof AUDIT_COLUMNS)[number]) => AUDIT_COLUMNS.indexOf(column);

/**
 * The same one-parameter INSERT over the same rows (a JSON array of AuditRowValues); the TEXT id
 * is `<at>-<rid>`, so a redelivered record is still skipped. The error message has no column
 * here and is dropped. Materialized for the reason INSERT_AUDIT_ROWS_SQL is (audit-table.ts).
 */
export const LEGACY_INSERT_AUDIT_ROWS_SQL = `WITH audit_rows(row) AS MATERIALIZED (SELECT value FROM json_each(?)) INSERT INTO ${LEGACY_AUDIT_TABLE} (id, ${LEGACY_COLUMNS.join(", ")}) SELECT (row ->> ${position("at")}) || '-' || (row ->> ${position("rid")}), ${LEGACY_COLUMNS.map((column) => `row ->> ${position(column)}`).join(", ")} FROM audit_rows WHERE true ON CONFLICT (id) DO NOTHING`;

/** A row of audit_log: the TEXT id instead of rid, no error message. */
export type LegacyAuditRow = Omit<AuditRow, "rid" | "error_message" | "request_id" | "run_id" | "credential" | "called_as"> & { id: string };

const WRITTEN_HERE = /^\d+-(\d+)$/;

/**
 * The rid of a record that had a TEXT id (a legacy row, or a queued record of the formats before
 * rid). Ids this code wrote carry their rid; older ones are random UUIDs, whose first 13 hex
 * digits (52 bits) stand in for it, so a record keeps one stable id and a redelivered one is
 * still recognised.
 */
export function ridOfLegacyId(id: string): number {
  const own = WRITTEN_HERE.exec(id)?.[1];
  const rid = own === undefined ? Number.parseInt(id.replaceAll("-", "").slice(0, 13), 16) : Number(own);
  return Number.isSafeInteger(rid) && rid >= 0 && rid <= MAX_RID ? rid : 0;
}

/** A legacy row as a record. */
export function fromLegacyRow(row: LegacyAuditRow): AuditRecord {
  return fromRow({ ...row, rid: ridOfLegacyId(row.id), error_message: null });
}
