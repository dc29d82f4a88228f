/**
 * The Session object's way of waking an agent run (src/agent/) that waits on an approval: no
 * polling anywhere. The run's id is kept with the approval when a run's call asks; when the
 * approval settles (approved and run, denied, expired, interrupted) the row is marked in the
 * same synchronous step as the outcome, then the run is told through its object's RPC method
 * `approvalSettled` and the row deleted. A failed send stays marked; the next drain (any later
 * change of the session) retries it, and the run itself reads its approvals once more when the
 * approval's expiry passes, so a lost wake costs a delay, never a stuck run.
 */
import type { ApprovalView } from "./approval-view.ts";
import { SESSION_RUN_WAKEUPS_TABLE } from "./session-schema.ts";

/** The Run object's method the session calls; typed here, so this layer imports nothing above it. */
interface RunWakeTarget {
  approvalSettled(approvalId: string, approval: ApprovalView): Promise<unknown>;
}

/** Remembers which run asked for a new approval. */
export function noteRunWaiting(sql: SqlStorage, approvalId: string, runId: string): void {
  sql.exec(`INSERT OR IGNORE INTO ${SESSION_RUN_WAKEUPS_TABLE} (approval_id, run_id, settled) VALUES (?, ?, 0)`, approvalId, runId);
}

/** In the step that settles an approval: marks its run's wake-up due. Whether a run asked for it. */
export function noteSettledForRun(sql: SqlStorage, approvalId: string): boolean {
  const cursor = sql.exec(`UPDATE ${SESSION_RUN_WAKEUPS_TABLE} SET settled = 1 WHERE approval_id = ?`, approvalId);
  cursor.toArray();
  return cursor.rowsWritten > 0;
}

/** Tells every run whose approval settled; `view` reads the approval as it is now. */
export async function wakeRuns(sql: SqlStorage, env: Env, view: (approvalId: string) => ApprovalView | undefined): Promise<void> {
  const due = sql.exec<{ approval_id: string; run_id: string }>(`SELECT approval_id, run_id FROM ${SESSION_RUN_WAKEUPS_TABLE} WHERE settled = 1`).toArray();
  for (const { approval_id: approvalId, run_id: runId } of due) {
    const approval = view(approvalId);
    if (approval === undefined) continue;
    try {
      const stub: RunWakeTarget = env.RUNS.get(env.RUNS.idFromName(runId));
      await stub.approvalSettled(approvalId, approval);
      sql.exec(`DELETE FROM ${SESSION_RUN_WAKEUPS_TABLE} WHERE approval_id = ?`, approvalId);
    } catch (error) {
      console.warn(`approval ${approvalId}: run ${runId} could not be woken (it re-reads the approval at its expiry): ${String(error)}`);
    }
  }
}
