/**
 * The stored shape of one approval, shared by the Session object's own SQLite table and the D1
 * index (docs/storage.md has both). Column names match, so one function turns either into the
 * view its readers get.
 */
import type { ApprovalScope, ApprovalStatus, ApprovalView } from "./approval-view.ts";

/** The columns both copies hold; `arguments` is the redacted canonical JSON a person may see. */
export type ApprovalIndexRow = {
  id: string;
  session_id: string;
  tool_call_id: string;
  tool: string;
  arguments: string;
  arguments_sha256: string;
  requested_by: string;
  requested_at: number;
  expires_at: number;
  status: string;
  scope: string | null;
  decided_by: string | null;
  decided_at: number | null;
  reason: string | null;
  result_status: string | null;
  result_error_code: string | null;
  result_content: string | null;
  /** Raised on every change, so a late write to the index never overwrites a newer state. */
  version: number;
};

/** What only the Session object keeps: the exact arguments, their binding hash, the run state. */
export type ApprovalRow = ApprovalIndexRow & {
  toolset: string | null;
  /** The arguments exactly as the approved call will run with them (JSON). Never leaves the object. */
  call_arguments: string;
  /** SHA-256 of the canonical JSON of `call_arguments`; the gate lets exactly that call through. */
  binding_sha256: string;
  /** `none` → `running` (recorded before the handler starts) → `done`. */
  run_state: string;
};

/** The index columns, in the order the D1 upsert binds them. */
export const INDEX_COLUMNS = [
  "id",
  "session_id",
  "tool_call_id",
  "tool",
  "arguments",
  "arguments_sha256",
  "requested_by",
  "requested_at",
  "expires_at",
  "status",
  "scope",
  "decided_by",
  "decided_at",
  "reason",
  "result_status",
  "result_error_code",
  "result_content",
  "version",
] as const satisfies readonly (keyof ApprovalIndexRow)[];

/** The row of a new pending approval. */
export function pendingRow(input: {
  sessionId: string;
  toolCallId: string;
  tool: string;
  toolset: string | undefined;
  requestedBy: string;
  ttlMs: number;
  /** Redacted canonical JSON and its hash; the exact canonical JSON and its hash. */
  shown: string;
  argumentsSha256: string;
  exact: string;
  bindingSha256: string;
  now: number;
}): ApprovalRow {
  return {
    id: crypto.randomUUID(),
    session_id: input.sessionId,
    tool_call_id: input.toolCallId,
    tool: input.tool,
    toolset: input.toolset ?? null,
    arguments: input.shown,
    arguments_sha256: input.argumentsSha256,
    call_arguments: input.exact,
    binding_sha256: input.bindingSha256,
    requested_by: input.requestedBy,
    requested_at: input.now,
    expires_at: input.now + input.ttlMs,
    status: "pending",
    scope: null,
    decided_by: null,
    decided_at: null,
    reason: null,
    run_state: "none",
    result_status: null,
    result_error_code: null,
    result_content: null,
    version: 1,
  };
}

/** A stored approval as its readers see it. Rows are written only from validated values. */
export function toApprovalView(row: ApprovalIndexRow): ApprovalView {
  return {
    id: row.id,
    sessionId: row.session_id,
    tool: row.tool,
    toolCallId: row.tool_call_id,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    argumentsSha256: row.arguments_sha256,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    status: row.status as ApprovalStatus,
    ...(row.scope === null ? {} : { scope: row.scope as ApprovalScope }),
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.result_status === null || row.result_content === null
      ? {}
      : {
          result: { status: row.result_status === "ok" ? ("ok" as const) : ("error" as const), errorCode: row.result_error_code, content: row.result_content },
        }),
  };
}
