/** Deletes webhook deliveries and their events past HOOK_DELIVERY_RETENTION_DAYS; the daily cron calls it. */
import { deleteOlderThan, retentionCutoff } from "../storage/delete-older-than.ts";
import { type DeliveryDatabase, HOOK_DELIVERIES_TABLE } from "./delivery-store.ts";
import { HOOK_EVENTS_TABLE } from "./webhook-events.ts";

/** Rows per DELETE (src/storage/delete-older-than.ts). */
const DELETE_CHUNK = 1_000;

/**
 * Deletes deliveries received, and events recorded, more than `retentionDays` before `now`.
 * A delivery's row is its replay guard, so this is also how long a replay is recognised.
 *
 * @example await deleteExpiredDeliveries(env.DB, config.webhookDeliveryRetentionDays, controller.scheduledTime);
 */
export async function deleteExpiredDeliveries(db: DeliveryDatabase, retentionDays: number, now: number): Promise<{ deliveries: number; events: number }> {
  const cutoff = retentionCutoff(retentionDays, now);
  return {
    deliveries: await deleteOlderThan(db, { table: HOOK_DELIVERIES_TABLE, column: "received_at", cutoff, chunk: DELETE_CHUNK }),
    events: await deleteOlderThan(db, { table: HOOK_EVENTS_TABLE, column: "at", cutoff, chunk: DELETE_CHUNK }),
  };
}
