/** Deletes webhook deliveries and their events past HOOK_DELIVERY_RETENTION_DAYS; the daily cron calls it. */
import { HOOK_DELIVERIES_TABLE, type DeliveryDatabase } from "./delivery-store.ts";
import { HOOK_EVENTS_TABLE } from "./hook-events.ts";

const DAY_MS = 86_400_000;
/** Rows per DELETE and DELETEs per table per run, as for the audit log (src/audit/retention.ts). */
const DELETE_CHUNK = 1_000;
const MAX_CHUNKS_PER_RUN = 200;

/**
 * Deletes deliveries received, and events recorded, more than `retentionDays` before `now`.
 * A delivery's row is its replay guard, so this is also how long a replay is recognised.
 *
 * @example await deleteExpiredDeliveries(env.DB, config.hookDeliveryRetentionDays, controller.scheduledTime);
 */
export async function deleteExpiredDeliveries(db: DeliveryDatabase, retentionDays: number, now: number): Promise<{ deliveries: number; events: number }> {
  const cutoff = now - retentionDays * DAY_MS;
  const chunked = async (table: string, column: string): Promise<number> => {
    const statement = db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? LIMIT ?)`);
    let deleted = 0;
    for (let i = 0; i < MAX_CHUNKS_PER_RUN; i++) {
      const { meta } = await statement.bind(cutoff, DELETE_CHUNK).run();
      deleted += meta.changes;
      if (meta.changes < DELETE_CHUNK) break;
    }
    return deleted;
  };
  return { deliveries: await chunked(HOOK_DELIVERIES_TABLE, "received_at"), events: await chunked(HOOK_EVENTS_TABLE, "at") };
}
