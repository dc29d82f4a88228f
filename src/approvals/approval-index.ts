/**
 * The D1 index of approvals (migrations/0003_approvals.sql): listings across sessions for the
 * page, and which session an approval id belongs to. The Session object is the source of truth
 * and writes a row here on every change; the index may lag it, never lead it.
 */
import { type ApprovalIndexRow, INDEX_COLUMNS, toApprovalView } from "./approval-row.ts";
import type { ApprovalStatus, ApprovalView } from "./approval-view.ts";

export const APPROVALS_TABLE = "approvals";

/** Rows a listing returns when the caller asks for no other number, and the most it may ask. */
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;

// `version` makes the write monotonic: a write that lost a race to a newer one changes nothing.
const UPSERT_SQL = `INSERT INTO ${APPROVALS_TABLE} (${INDEX_COLUMNS.join(", ")}) VALUES (${INDEX_COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (id) DO UPDATE SET ${INDEX_COLUMNS.filter((c) => c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ")}
  WHERE excluded.version > ${APPROVALS_TABLE}.version`;

/** Writes the index row of an approval's current state. */
export async function writeApprovalIndex(db: D1Database, row: ApprovalIndexRow): Promise<void> {
  await db
    .prepare(UPSERT_SQL)
    .bind(...INDEX_COLUMNS.map((column) => row[column]))
    .run();
}

/** The session an approval belongs to, or undefined for an unknown id. */
export async function sessionOfApproval(db: D1Database, id: string): Promise<string | undefined> {
  const row = await db.prepare(`SELECT session_id FROM ${APPROVALS_TABLE} WHERE id = ?`).bind(id).first<{ session_id: string }>();
  return row?.session_id;
}

/** Approvals newest first, optionally of one status and one session. */
export async function listApprovalIndex(db: D1Database, query: { status?: ApprovalStatus; sessionId?: string; limit?: number }): Promise<ApprovalView[]> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (query.status !== undefined) {
    where.push("status = ?");
    params.push(query.status);
  }
  if (query.sessionId !== undefined) {
    where.push("session_id = ?");
    params.push(query.sessionId);
  }
  const limit = Math.min(Math.max(1, Math.trunc(query.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
  const sql = `SELECT ${INDEX_COLUMNS.join(", ")} FROM ${APPROVALS_TABLE}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY requested_at DESC, id DESC LIMIT ?`;
  const { results } = await db
    .prepare(sql)
    .bind(...params, limit)
    .all<ApprovalIndexRow>();
  return results.map(toApprovalView);
}
