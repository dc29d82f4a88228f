/** The Session object's one alarm, which both approval expiry and the webhook notice outbox need. */
import { SESSION_APPROVALS_TABLE, SESSION_HOOK_NOTICES_TABLE } from "./session-schema.ts";

/**
 * Sets the alarm to the next expiry of a pending approval or retry of a notice, or deletes it
 * when there is neither. Call it after every change that may move either time.
 */
export async function scheduleSessionAlarm(storage: DurableObjectStorage): Promise<void> {
  const next =
    storage.sql
      .exec<{ next: number | null }>(
        `SELECT MIN(at) AS next FROM (SELECT expires_at AS at FROM ${SESSION_APPROVALS_TABLE} WHERE status = 'pending' UNION ALL SELECT due_at AS at FROM ${SESSION_HOOK_NOTICES_TABLE})`,
      )
      .toArray()[0]?.next ?? null;
  if (next === null) await storage.deleteAlarm();
  else await storage.setAlarm(next);
}
