/**
 * The Session object's approval and grant rows in its SQLite storage (session-schema.ts).
 * Every function is synchronous, as Durable Object SQL is, so the object can check a row and
 * write it in one step with no `await` between them: nothing can interleave.
 */
import type { ApprovalRow } from "./approval-row.ts";
import { SESSION_APPROVALS_TABLE, SESSION_GRANTS_TABLE } from "./session-schema.ts";

/** One approval of the session, or undefined (also for another session's id). */
export function findApproval(sql: SqlStorage, id: string, sessionId: string): ApprovalRow | undefined {
  return sql.exec<ApprovalRow>(`SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE id = ? AND session_id = ?`, id, sessionId).toArray()[0];
}

/** An approval of this object by id alone (the object holds one session's approvals). */
export function findApprovalById(sql: SqlStorage, id: string): ApprovalRow | undefined {
  return sql.exec<ApprovalRow>(`SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE id = ?`, id).toArray()[0];
}

/** The approval an earlier request of the same key and session asked for under this tool call id. */
export function findApprovalByCallId(sql: SqlStorage, call: { toolCallId: string; sessionId: string; requestedBy: string }): ApprovalRow | undefined {
  return sql
    .exec<ApprovalRow>(
      `SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE tool_call_id = ? AND session_id = ? AND requested_by = ?`,
      call.toolCallId,
      call.sessionId,
      call.requestedBy,
    )
    .toArray()[0];
}

/**
 * The latest approval the key asked for in this session for exactly these arguments of this
 * tool: an MCP session sends a re-sent call under a new JSON-RPC id, so it is recognised by
 * what it asks, not by its id.
 */
export function findApprovalByBinding(
  sql: SqlStorage,
  call: { tool: string; bindingSha256: string; sessionId: string; requestedBy: string },
): ApprovalRow | undefined {
  return sql
    .exec<ApprovalRow>(
      `SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE requested_by = ? AND tool = ? AND binding_sha256 = ? AND session_id = ? ORDER BY requested_at DESC LIMIT 1`,
      call.requestedBy,
      call.tool,
      call.bindingSha256,
      call.sessionId,
    )
    .toArray()[0];
}

/** Pending approvals whose time has come by `now`. */
export function dueApprovals(sql: SqlStorage, now: number): ApprovalRow[] {
  return sql.exec<ApprovalRow>(`SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE status = 'pending' AND expires_at <= ?`, now).toArray();
}

/** Approved calls recorded as running: after a restart, runs their object died in. */
export function runningApprovals(sql: SqlStorage): ApprovalRow[] {
  return sql.exec<ApprovalRow>(`SELECT * FROM ${SESSION_APPROVALS_TABLE} WHERE run_state = 'running'`).toArray();
}

export function insertApproval(sql: SqlStorage, row: ApprovalRow): void {
  const columns = Object.keys(row);
  sql.exec(`INSERT INTO ${SESSION_APPROVALS_TABLE} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...Object.values(row));
}

/** Writes the columns a change of state may touch; the request's own columns never change. */
export function saveApproval(sql: SqlStorage, row: ApprovalRow): void {
  sql.exec(
    `UPDATE ${SESSION_APPROVALS_TABLE} SET status = ?, scope = ?, decided_by = ?, decided_at = ?, reason = ?, run_state = ?, result_status = ?, result_error_code = ?, result_content = ?, version = ? WHERE id = ?`,
    row.status,
    row.scope,
    row.decided_by,
    row.decided_at,
    row.reason,
    row.run_state,
    row.result_status,
    row.result_error_code,
    row.result_content,
    row.version,
    row.id,
  );
}

/** The id of the approval that granted `tool` to the key for the whole session, if one did. */
export function findGrant(sql: SqlStorage, tool: string, requestedBy: string): string | undefined {
  return sql
    .exec<{ approval_id: string }>(`SELECT approval_id FROM ${SESSION_GRANTS_TABLE} WHERE tool = ? AND requested_by = ?`, tool, requestedBy)
    .toArray()[0]?.approval_id;
}

/** Records a session-wide grant of the approval's tool to the key that asked for it. */
export function insertGrant(sql: SqlStorage, row: ApprovalRow, grantedBy: string, grantedAt: number): void {
  sql.exec(
    `INSERT OR REPLACE INTO ${SESSION_GRANTS_TABLE} (tool, requested_by, approval_id, granted_by, granted_at) VALUES (?, ?, ?, ?, ?)`,
    row.tool,
    row.requested_by,
    row.id,
    grantedBy,
    grantedAt,
  );
}

/** Removes every session-wide grant of the key; the number removed. */
export function deleteGrants(sql: SqlStorage, requestedBy: string): number {
  return sql.exec(`DELETE FROM ${SESSION_GRANTS_TABLE} WHERE requested_by = ?`, requestedBy).rowsWritten;
}
