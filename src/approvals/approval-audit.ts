/**
 * The audit record of an approval's end: the run of an approved call, a denial, or an expiry.
 * Each carries the decision (who, when, scope, reason), so every decision is on one record.
 */
import { AuditBuffer } from "../audit/audit-buffer.ts";
import { toAuditRecord } from "../audit/to-audit-record.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import type { ApprovalRow } from "./approval-row.ts";

/** Sends the record through the audit queue (D1 directly if the queue refuses); never rejects. */
export async function recordApprovalAudit(env: Env, row: ApprovalRow, outcome: CallOutcome): Promise<void> {
  try {
    const buffer = new AuditBuffer();
    buffer.add(
      toAuditRecord(outcome, JSON.parse(row.call_arguments), {
        keyId: row.requested_by,
        sessionId: row.session_id,
        approvalId: row.id,
        decision: {
          by: row.decided_by,
          at: row.decided_at ?? Date.now(),
          scope: row.scope === "once" || row.scope === "session" ? row.scope : null,
          reason: row.reason,
        },
      }),
    );
    await buffer.flush(env);
  } catch (error) {
    console.error(`approval ${row.id}: audit record failed: ${String(error)}`);
  }
}
