/** The newest webhook deliveries for the webhooks page, by the received_at index. */
import { type DeliveryStatus, HOOK_DELIVERIES_TABLE } from "../webhooks/delivery-store.ts";

const SHOWN = 50;

export interface RecentDelivery {
  id: string;
  hook: string;
  status: DeliveryStatus;
  receivedAt: number;
  updatedAt: number;
  attempts: number;
  error: string | null;
  /** A run webhook's run, once started (migration 0009). */
  runId: string | null;
}

/** The newest deliveries, of one status when `status` is given. */
export async function recentDeliveries(db: D1Database, status?: DeliveryStatus): Promise<RecentDelivery[]> {
  const { results } = await db
    .prepare(
      `SELECT id, hook, status, received_at, updated_at, attempts, error, run_id FROM ${HOOK_DELIVERIES_TABLE}
       ${status === undefined ? "" : "WHERE status = ?"} ORDER BY received_at DESC LIMIT ${SHOWN}`,
    )
    .bind(...(status === undefined ? [] : [status]))
    .all<{
      id: string;
      hook: string;
      status: DeliveryStatus;
      received_at: number;
      updated_at: number;
      attempts: number;
      error: string | null;
      run_id: string | null;
    }>();
  return results.map((r) => ({
    id: r.id,
    hook: r.hook,
    status: r.status,
    receivedAt: r.received_at,
    updatedAt: r.updated_at,
    attempts: r.attempts,
    error: r.error,
    runId: r.run_id,
  }));
}
