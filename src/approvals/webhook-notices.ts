/**
 * The Session object's outbox toward webhook deliveries. A delivery's calls run with session id
 * = delivery id and key id `hook:<name>`; when one of their approvals settles (approved and run,
 * denied, expired, interrupted), the delivery must learn it, durably. A notice row is written in
 * the same synchronous step as the settled outcome, then sent to the webhooks queue as an
 * `approval_settled` message and deleted; a failed send stays for the object's alarm to retry.
 * The consumer re-reads the outcome from the object and is idempotent, so a notice sent twice
 * (the object died between send and delete, or two drains overlapped) is one no-op message.
 */
import type { ApprovalSettledMessage } from "../webhooks/webhook-message.ts";
import { WEBHOOK_KEY_PREFIX } from "../webhooks/webhook-principal.ts";
import type { ApprovalRow } from "./approval-row.ts";
import { SESSION_HOOK_NOTICES_TABLE } from "./session-schema.ts";

/** Longest wait between two attempts to queue one notice. */
const MAX_RETRY_SECONDS = 300;

/**
 * A new notice is sent at once by the step that wrote it; its `due_at` is this far ahead, for the
 * alarm, which then only finds it if that step died before the send (it is not sent twice).
 */
const FIRST_SEND_GRACE_MS = 30_000;

/**
 * Adds the notice of a settled approval if a webhook delivery asked for it. Synchronous, by
 * design. Returns whether it did (the caller then sets its alarm, so a crash cannot strand it).
 */
export function noteSettledForWebhook(sql: SqlStorage, row: ApprovalRow, now = Date.now()): boolean {
  if (!row.requested_by.startsWith(WEBHOOK_KEY_PREFIX)) return false;
  // OR IGNORE: an approval settles once; a second row could only be a duplicate.
  sql.exec(
    `INSERT OR IGNORE INTO ${SESSION_HOOK_NOTICES_TABLE} (approval_id, delivery_id, attempts, due_at) VALUES (?, ?, 0, ?)`,
    row.id,
    row.session_id,
    now + FIRST_SEND_GRACE_MS,
  );
  return true;
}

/**
 * Queues every new or due notice; a sent one is deleted, a failed one waits min(2^attempts, 300) s.
 * Returns whether the outbox changed, so the caller re-aims its alarm: at a failed notice's retry,
 * and away from a sent one's FIRST_SEND_GRACE_MS (left set, it woke the object 30 s later for
 * nothing, and held up the drain of every test file that settled a webhook's approval).
 */
export async function sendWebhookNotices(sql: SqlStorage, queue: Queue, now = Date.now()): Promise<boolean> {
  const due = sql
    .exec<{ approval_id: string; delivery_id: string; attempts: number }>(
      `SELECT approval_id, delivery_id, attempts FROM ${SESSION_HOOK_NOTICES_TABLE} WHERE attempts = 0 OR due_at <= ?`,
      now,
    )
    .toArray();
  for (const notice of due) {
    const message: ApprovalSettledMessage = { kind: "approval_settled", deliveryId: notice.delivery_id, approvalId: notice.approval_id };
    try {
      await queue.send(message, { contentType: "json" });
      sql.exec(`DELETE FROM ${SESSION_HOOK_NOTICES_TABLE} WHERE approval_id = ?`, notice.approval_id);
    } catch (error) {
      const delayMs = Math.min(2 ** (notice.attempts + 1), MAX_RETRY_SECONDS) * 1000;
      console.warn(
        `approval ${notice.approval_id}: settled notice for delivery ${notice.delivery_id} not queued (attempt ${notice.attempts + 1}), retry in ${delayMs} ms: ${String(error)}`,
      );
      sql.exec(`UPDATE ${SESSION_HOOK_NOTICES_TABLE} SET attempts = attempts + 1, due_at = ? WHERE approval_id = ?`, now + delayMs, notice.approval_id);
    }
  }
  return due.length > 0;
}
