/**
 * The D1 table behind the audit log (migrations/0005_audit_records.sql; docs/storage.md has its
 * row), and its layout before that migration (legacy-audit-table.ts). Column order here is the
 * row's, as queue messages and the INSERT carry it; change the migration, this file and the docs
 * together.
 */
import type { CredentialKind } from "../registry/credential-kind.ts";
import type { AuditRecord, AuditStatus } from "./audit-record.ts";

export const AUDIT_TABLE = "audit_records";
/** The two secondary indexes; every other filter reads a range of the primary key (at, rid). */
export const AUDIT_KEY_INDEX = "audit_records_key";
export const AUDIT_SESSION_INDEX = "audit_records_session";

/** A row as D1 returns it: booleans are 0/1, coercions are JSON text. */
export interface AuditRow {
  at: number;
  rid: number;
  key_id: string;
  session_id: string;
  tool_call_id: string;
  tool: string;
  toolset: string | null;
  arguments: string;
  arguments_truncated: number;
  arguments_sha256: string;
  coercions: string;
  coercion_count: number;
  policy_decision: string | null;
  policy_rule: string | null;
  approval_id: string | null;
  status: string;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  duration_ms: number;
  result_chars: number;
  truncated: number;
  decided_by: string | null;
  decided_at: number | null;
  decision_scope: string | null;
  decision_reason: string | null;
  /** Added by 0006_request_ids.sql; absent from rows a layout without it returns. */
  request_id?: string | null;
  /** Added by 0007_agent_runs.sql; absent likewise. */
  run_id?: string | null;
  /** Added by 0015_audit_credentials.sql; absent likewise. */
  credential?: string | null;
  /** Added by 0016_audit_called_as.sql; absent likewise. */
  called_as?: string | null;
}

export const AUDIT_COLUMNS = [
  "at",
  "rid",
  "key_id",
  "session_id",
  "tool_call_id",
  "tool",
  "toolset",
  "arguments",
  "arguments_truncated",
  "arguments_sha256",
  "coercions",
  "coercion_count",
  "policy_decision",
  "policy_rule",
  "approval_id",
  "status",
  "error_code",
  "error_message",
  "attempts",
  "duration_ms",
  "result_chars",
  "truncated",
  "decided_by",
  "decided_at",
  "decision_scope",
  "decision_reason",
  "request_id",
  "run_id",
  "credential",
  "called_as",
] as const satisfies readonly (keyof AuditRow)[];

/** A record as one JSON array in AUDIT_COLUMNS order: what queue messages and the INSERT carry. */
export type AuditRowValues = (string | number | null)[];

/**
 * Inserts rows once each: a redelivered record carries the same (at, rid) and changes nothing.
 * `ON CONFLICT DO NOTHING` rather than `INSERT OR IGNORE`, because OR IGNORE would also silently
 * skip a row that broke any other constraint (a NOT NULL, the status CHECK), and that must fail.
 *
 * Its one parameter is a JSON array of rows (AuditRowValues), so one statement carries many rows
 * and the queue consumer can bind message bodies without parsing them. `WHERE true` is SQLite's
 * required disambiguation between a SELECT's join and an upsert's ON CONFLICT.
 *
 * The rows go through a MATERIALIZED CTE because SQLite otherwise flattens the SELECT into the
 * INSERT and evaluates json_each's `value` (which renders the row's JSON text afresh) once per
 * column read from it: 28 renderings per row instead of one. Measured in workerd's CPU with
 * 1,000-row statements (2026-12-02): about 25 us per row flattened, 12-15 materialized, of which
 * the 28 `->>` are ~4.5, the three B-tree inserts ~4 and the JSON's transport and parse ~4.
 */
export const INSERT_AUDIT_ROWS_SQL = insertSql(AUDIT_COLUMNS);

/**
 * The same INSERT without `request_id` and `run_id`, for a database 0006_request_ids.sql has not
 * reached yet (audit-layout.ts falls back to it), so a Worker deployed ahead of the migration
 * loses no record; and without `run_id` alone, for one 0006 reached but not 0007_agent_runs.sql.
 */
export const INSERT_AUDIT_ROWS_WITHOUT_REQUEST_ID_SQL = insertSql(
  AUDIT_COLUMNS.filter((column) => column !== "request_id" && column !== "run_id" && column !== "credential" && column !== "called_as"),
);
export const INSERT_AUDIT_ROWS_WITHOUT_RUN_ID_SQL = insertSql(
  AUDIT_COLUMNS.filter((column) => column !== "run_id" && column !== "credential" && column !== "called_as"),
);
/** Without `credential` (and so `called_as`, which 0016 adds later), for a database 0015_audit_credentials.sql has not reached yet. */
export const INSERT_AUDIT_ROWS_WITHOUT_CREDENTIAL_SQL = insertSql(AUDIT_COLUMNS.filter((column) => column !== "credential" && column !== "called_as"));
/** Without `called_as`, for a database 0016_audit_called_as.sql has not reached. */
export const INSERT_AUDIT_ROWS_WITHOUT_CALLED_AS_SQL = insertSql(AUDIT_COLUMNS.filter((column) => column !== "called_as"));

function insertSql(columns: readonly (typeof AUDIT_COLUMNS)[number][]): string {
  return `WITH audit_rows(row) AS MATERIALIZED (SELECT value FROM json_each(?)) INSERT INTO ${AUDIT_TABLE} (${columns.join(", ")}) SELECT ${columns.map((column) => `row ->> ${AUDIT_COLUMNS.indexOf(column)}`).join(", ")} FROM audit_rows WHERE true ON CONFLICT DO NOTHING`;
}

/** The row of a record, in AUDIT_COLUMNS order. */
export function toRowValues(r: AuditRecord): AuditRowValues {
  return [
    r.at,
    r.rid,
    r.keyId,
    r.sessionId,
    r.toolCallId,
    r.tool,
    r.toolset,
    r.arguments,
    r.argumentsTruncated ? 1 : 0,
    r.argumentsSha256,
    JSON.stringify(r.coercions),
    r.coercionCount,
    r.policyDecision,
    r.policyRule,
    r.approvalId,
    r.status,
    r.errorCode,
    r.errorMessage,
    r.attempts,
    r.durationMs,
    r.resultChars,
    r.truncated ? 1 : 0,
    r.decision?.by ?? null,
    r.decision?.at ?? null,
    r.decision?.scope ?? null,
    r.decision?.reason ?? null,
    r.requestId ?? null,
    r.runId ?? null,
    r.credential ?? null,
    r.calledAs ?? null,
  ];
}

/** A stored row as a record; the row was written from a validated record, so it is trusted. */
export function fromRow(row: AuditRow): AuditRecord {
  return {
    at: row.at,
    rid: row.rid,
    keyId: row.key_id,
    sessionId: row.session_id,
    ...(row.run_id === null || row.run_id === undefined ? {} : { runId: row.run_id }),
    toolCallId: row.tool_call_id,
    tool: row.tool,
    ...(row.called_as === null || row.called_as === undefined ? {} : { calledAs: row.called_as }),
    toolset: row.toolset,
    arguments: row.arguments,
    argumentsTruncated: row.arguments_truncated === 1,
    argumentsSha256: row.arguments_sha256,
    coercions: JSON.parse(row.coercions) as AuditRecord["coercions"],
    coercionCount: row.coercion_count,
    policyDecision: row.policy_decision,
    policyRule: row.policy_rule,
    approvalId: row.approval_id,
    status: row.status as AuditStatus,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    attempts: row.attempts,
    durationMs: row.duration_ms,
    resultChars: row.result_chars,
    truncated: row.truncated === 1,
    requestId: row.request_id ?? null,
    ...(row.credential === null || row.credential === undefined ? {} : { credential: row.credential as CredentialKind }),
    ...(row.decided_at === null
      ? {}
      : { decision: { by: row.decided_by, at: row.decided_at, scope: row.decision_scope as "once" | "session" | null, reason: row.decision_reason } }),
  };
}
