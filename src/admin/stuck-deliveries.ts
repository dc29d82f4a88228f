/** Webhook deliveries that need a person: dead-lettered ones, and ones queued or running for too long. */
import { type DeliveryStatus, HOOK_DELIVERIES_TABLE } from "../webhooks/delivery-store.ts";

/**
 * Queued or running longer than this is stuck: a consumer normally takes seconds. Not a delivery
 * whose agent run has started (run_id, migration 0009): a run may wait minutes for a person, is
 * bounded by its own deadline and reports its end itself.
 */
export const STUCK_AFTER_MS = 10 * 60_000;
/** How far back the overview looks; older deliveries are the retention job's. */
const LOOK_BACK_MS = 7 * 86_400_000;
const SHOWN = 20;

export interface StuckDelivery {
  id: string;
  hook: string;
  status: DeliveryStatus;
  receivedAt: number;
  error: string | null;
}

/** The newest stuck deliveries of the last week, by the received_at index. */
export async function stuckDeliveries(db: D1Database, now: number): Promise<StuckDelivery[]> {
  const { results } = await db
    .prepare(
      `SELECT id, hook, status, received_at, error FROM ${HOOK_DELIVERIES_TABLE}
       WHERE received_at >= ? AND (status = 'failed' OR (status IN ('queued', 'running') AND updated_at < ? AND run_id IS NULL))
       ORDER BY received_at DESC LIMIT ${SHOWN}`,
    )
    .bind(now - LOOK_BACK_MS, now - STUCK_AFTER_MS)
    .all<{ id: string; hook: string; status: DeliveryStatus; received_at: number; error: string | null }>();
  return results.map((r) => ({ id: r.id, hook: r.hook, status: r.status, receivedAt: r.received_at, error: r.error }));
}
