/**
 * The D1 table behind the audit log (migrations/0001_audit_log.sql; docs/storage.md has its
 * row). Column order here is the INSERT's; change the migration, this file and the docs together.
 */
import type { AuditRecord, AuditStatus } from "./audit-record.ts";

export const AUDIT_TABLE = "audit_log";

/** A row as D1 returns it: booleans are 0/1, coercions are JSON text. */
export interface AuditRow {
  id: string;
  at: number;
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
  attempts: number;
  duration_ms: number;
  result_chars: number;
  truncated: number;
  decided_by: string | null;
  decided_at: number | null;
  decision_scope: string | null;
  decision_reason: string | null;
}

const COLUMNS = [
  "id", "at", "key_id", "session_id", "tool_call_id", "tool", "toolset", "arguments", "arguments_truncated",
  "arguments_sha256", "coercions", "coercion_count", "policy_decision", "policy_rule", "approval_id", "status",
  "error_code", "attempts", "duration_ms", "result_chars", "truncated",
  // migrations/0003_approvals.sql
  "decided_by", "decided_at", "decision_scope", "decision_reason",
] as const satisfies readonly (keyof AuditRow)[];

/**
 * Inserts rows once each: a redelivered queue message carries the same ids and changes nothing.
 * `ON CONFLICT (id) DO NOTHING` rather than `INSERT OR IGNORE`, because OR IGNORE would also
 * silently skip a row that broke any other constraint (a NOT NULL), and that must fail loudly.
 *
 * Its one parameter is a JSON array of rows, each the array `toRowValues` makes, so one
 * statement carries many rows. `WHERE true` is SQLite's required disambiguation between a
 * SELECT's join and an upsert's ON CONFLICT.
 */
export const INSERT_AUDIT_ROWS_SQL = `INSERT INTO ${AUDIT_TABLE} (${COLUMNS.join(", ")}) SELECT ${COLUMNS.map((_, i) => `value ->> ${i}`).join(", ")} FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING`;

/** The INSERT's bound values, in COLUMNS order. */
export function toRowValues(r: AuditRecord): (string | number | null)[] {
  return [
    r.id, r.at, r.keyId, r.sessionId, r.toolCallId, r.tool, r.toolset, r.arguments, r.argumentsTruncated ? 1 : 0,
    r.argumentsSha256, JSON.stringify(r.coercions), r.coercionCount, r.policyDecision, r.policyRule, r.approvalId, r.status,
    r.errorCode, r.attempts, r.durationMs, r.resultChars, r.truncated ? 1 : 0,
    r.decision?.by ?? null, r.decision?.at ?? null, r.decision?.scope ?? null, r.decision?.reason ?? null,
  ];
}

/** A stored row as a record; the row was written from a validated record, so it is trusted. */
export function fromRow(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: row.at,
    keyId: row.key_id,
    sessionId: row.session_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
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
    attempts: row.attempts,
    durationMs: row.duration_ms,
    resultChars: row.result_chars,
    truncated: row.truncated === 1,
    ...(row.decided_at === null
      ? {}
      : { decision: { by: row.decided_by, at: row.decided_at, scope: row.decision_scope as "once" | "session" | null, reason: row.decision_reason } }),
  };
}
