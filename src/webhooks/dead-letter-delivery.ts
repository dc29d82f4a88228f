/**
 * The consumer of `toolgate-hooks-dlq`: a message that used up its retries. The delivery is
 * failed with the last reason, a pending callback is marked failed, and both are written to
 * `hook_events`; the message is always acked, since there is nowhere further to send it.
 */
import { failDelivery, getDeliveryState, settleCallback } from "./delivery-store.ts";
import { settleApproval } from "./settle-approval.ts";
import { WebhookMessageSchema } from "./webhook-message.ts";
import { queueEvent, type WebhookQueueDeps } from "./webhook-queue-deps.ts";

/** A webhook event's webhook is unknown only for a message that names no delivery. */
const UNKNOWN_HOOK = "(unknown)";

/** Records why the delivery gave up, then acks. */
export async function deadLetterDelivery(message: Message<unknown>, deps: WebhookQueueDeps): Promise<void> {
  const parsed = WebhookMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    const detail = `dead-lettered message is not a hook delivery message: ${JSON.stringify(message.body)?.slice(0, 500)}`;
    console.error(`hooks: ${detail}`);
    queueEvent(deps, UNKNOWN_HOOK, "dead_lettered", null, detail);
    message.ack();
    return;
  }
  const id = parsed.data.deliveryId;
  const state = await getDeliveryState(deps.db, id);
  if (state === undefined) {
    queueEvent(deps, UNKNOWN_HOOK, "dead_lettered", null, `no delivery ${id} (never stored, or deleted by retention)`);
    message.ack();
    return;
  }
  const gaveUp = (error: string | null): string => `gave up after the queue's last retry: ${error ?? "no error was recorded"}`;
  if (state.status === "queued" || state.status === "running") {
    const reason = gaveUp(state.error);
    if (await failDelivery(deps.db, id, reason, deps.now())) queueEvent(deps, state.hook, "dead_lettered", id, reason);
  } else if (state.status === "awaiting_approval") {
    // An approval_settled message gave up. Its approval may have been the delivery's last, and
    // then no other message comes to re-read them: settle once more here (it is idempotent).
    if ("kind" in parsed.data && parsed.data.kind === "approval_settled") {
      try {
        await settleApproval(message, parsed.data, deps);
        return;
      } catch (error) {
        queueEvent(deps, state.hook, "dead_lettered", id, gaveUp(error instanceof Error ? error.message : String(error)));
      }
    } else {
      queueEvent(deps, state.hook, "dead_lettered", id, gaveUp(state.error));
    }
  } else if (state.callbackStatus === "pending") {
    const reason = gaveUp(state.callbackError);
    await settleCallback(deps.db, id, "failed", reason, deps.now());
    queueEvent(deps, state.hook, "callback_failed", id, reason);
  }
  message.ack();
}
