/**
 * The run columns of `hook_deliveries` (migrations/0009_hook_runs.sql): a run webhook's delivery
 * moves through the same statuses as any other (queued → running → done | failed |
 * awaiting_approval), and these conditional UPDATEs add what a run needs on top:
 *
 *   queued → running (claimRunDelivery) → run_id set (setDeliveryRun) → the run reports its end →
 *   run_outcome set (claimRunOutcome, exactly once) → the reply call → done | awaiting_approval
 *
 * The run id is derived from the delivery id and the claim's attempt, so starting it twice (a
 * redelivered message after a crash) reaches the same Run object, whose start is idempotent.
 */
import { type DeliveryDatabase, HOOK_DELIVERIES_TABLE, type RunOutcome } from "./delivery-store.ts";

/** The run a delivery's attempt starts: one per claim, so a re-run after a failure is a new run. */
export const deliveryRunId = (deliveryId: string, attempt: number): string => `${deliveryId}-r${attempt}`;

/**
 * queued → running for a run delivery, clearing what an earlier attempt left (a re-run starts a
 * new run). The claim's attempt number, or undefined when another consumer had it.
 */
export async function claimRunDelivery(db: DeliveryDatabase, id: string, now: number): Promise<number | undefined> {
  const row = await db
    .prepare(
      `UPDATE ${HOOK_DELIVERIES_TABLE} SET status = 'running', claimed_at = ?, attempts = attempts + 1, run_id = NULL, run_outcome = NULL, updated_at = ?
       WHERE id = ? AND status = 'queued' RETURNING attempts`,
    )
    .bind(now, now, id)
    .first<{ attempts: number }>();
  return row?.attempts;
}

/** Keeps the started run's id on the running delivery. */
export async function setDeliveryRun(db: DeliveryDatabase, id: string, runId: string, now: number): Promise<boolean> {
  const result = await db
    .prepare(`UPDATE ${HOOK_DELIVERIES_TABLE} SET run_id = ?, updated_at = ? WHERE id = ? AND status = 'running'`)
    .bind(runId, now, id)
    .run();
  return result.meta.changes === 1;
}

/**
 * Records how the delivery's run ended. True for exactly one caller: the one that then makes the
 * reply call, so two consumers of a duplicated `run_finished` message never post it twice.
 */
export async function claimRunOutcome(db: DeliveryDatabase, id: string, outcome: RunOutcome, now: number): Promise<boolean> {
  const result = await db
    .prepare(`UPDATE ${HOOK_DELIVERIES_TABLE} SET run_outcome = ?, updated_at = ? WHERE id = ? AND status = 'running' AND run_id = ? AND run_outcome IS NULL`)
    .bind(JSON.stringify(outcome), now, id, outcome.id)
    .run();
  return result.meta.changes === 1;
}
