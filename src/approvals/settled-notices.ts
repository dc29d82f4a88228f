/**
 * What a settled approval leaves the Session object (session.ts) to tell: the webhook delivery
 * that asked for it (webhook-notices.ts) or the agent run waiting on it (run-wakeups.ts). Each is
 * noted in the same synchronous step as the outcome, so a crash cannot lose it, and sent after.
 */
import { type ApprovalRow, toApprovalView } from "./approval-row.ts";
import { findApprovalById } from "./approval-store.ts";
import { noteSettledForRun, wakeRuns } from "./run-wakeups.ts";
import { scheduleSessionAlarm } from "./session-alarm.ts";
import { noteSettledForWebhook, sendWebhookNotices } from "./webhook-notices.ts";

/**
 * In the same synchronous step as a settled outcome: the waiting run's wake-up (run-wakeups.ts),
 * else a webhook delivery's notice (webhook-notices.ts). Returns whether a notice was added (the
 * caller then sets its alarm).
 */
export function noteSettled(sql: SqlStorage, row: ApprovalRow): boolean {
  // A run started by a webhook asks as `hook:<name>` too, but its run is told, not a delivery.
  if (noteSettledForRun(sql, row.id)) return false;
  return noteSettledForWebhook(sql, row);
}

/** Sends the hook notices, re-aims the alarm when the outbox changed, and wakes the agent runs (run-wakeups.ts) a settled approval leaves. */
export async function sendSettledNotices(storage: DurableObjectStorage, env: Env): Promise<void> {
  if (await sendWebhookNotices(storage.sql, env.HOOKS_QUEUE)) await scheduleSessionAlarm(storage);
  await wakeRuns(storage.sql, env, (id) => {
    const row = findApprovalById(storage.sql, id);
    return row === undefined ? undefined : toApprovalView(row);
  });
}
