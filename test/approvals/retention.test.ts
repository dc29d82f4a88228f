/** The daily cron's approvals half: settled approvals past the retention leave the D1 index; pending ones and recent ones stay. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionOfApproval, writeApprovalIndex } from "../../src/approvals/approval-index.ts";
import type { ApprovalIndexRow } from "../../src/approvals/approval-row.ts";
import { deleteSettledApprovals } from "../../src/approvals/retention.ts";

const DAY_MS = 86_400_000;

function row(id: string, status: string, requestedAt: number): ApprovalIndexRow {
  const settled = status !== "pending";
  return {
    id,
    session_id: "retention-session",
    tool_call_id: `call-${id}`,
    tool: "delete_result",
    arguments: "{}",
    arguments_sha256: "0".repeat(64),
    requested_by: "key-retention",
    requested_at: requestedAt,
    expires_at: requestedAt + 900_000,
    status,
    scope: status === "approved" ? "once" : null,
    decided_by: settled && status !== "expired" ? "approver" : null,
    decided_at: settled ? requestedAt + 1_000 : null,
    reason: status === "denied" ? "no" : null,
    result_status: status === "approved" ? "ok" : null,
    result_error_code: null,
    result_content: status === "approved" ? "done" : null,
    version: 1,
  };
}

describe("deleteSettledApprovals", () => {
  it("deletes settled approvals older than the retention, and keeps pending and recent ones", async () => {
    const now = Date.now();
    const rows = [
      row("ret-approved-old", "approved", now - 31 * DAY_MS),
      row("ret-denied-old", "denied", now - 40 * DAY_MS),
      row("ret-expired-old", "expired", now - 31 * DAY_MS),
      // Cannot happen with APPROVAL_TTL_SECONDS' week at most, but a pending row is never dropped.
      row("ret-pending-old", "pending", now - 31 * DAY_MS),
      row("ret-approved-new", "approved", now - 29 * DAY_MS),
    ];
    for (const r of rows) await writeApprovalIndex(env.DB, r);
    expect(await deleteSettledApprovals(env.DB, 30, now)).toBe(3);
    const left = await Promise.all(rows.map(async (r) => [r.id, await sessionOfApproval(env.DB, r.id)] as const));
    expect(left.filter(([, session]) => session !== undefined).map(([id]) => id)).toEqual(["ret-pending-old", "ret-approved-new"]);
    expect(await deleteSettledApprovals(env.DB, 30, now)).toBe(0);
  });

  it("refuses a retention that is not a positive number", async () => {
    await expect(deleteSettledApprovals(env.DB, 0, Date.now())).rejects.toThrow(RangeError);
  });
});
