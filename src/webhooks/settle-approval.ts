/**
 * The `approval_settled` message: an approval one of a delivery's calls asked for settled (sent
 * by the Session object). Its outcome is applied to the stored results with a compare-and-set,
 * so concurrent settlements and redeliveries apply once; the delivery moves to `done` once no
 * call waits, and only then is the callback sent, once, as for any finished run.
 */

import { deliveryStatusOf } from "../formats/outcome-wire.ts";
import { settleDeliveryResults } from "./delivery-store.ts";
import { postCallback } from "./post-callback.ts";
import { settledResults } from "./settled-results.ts";
import type { ApprovalSettledMessage } from "./webhook-message.ts";
import { queueEvent, RetryLater, readDelivery, type WebhookQueueDeps } from "./webhook-queue-deps.ts";

/** Compare-and-set rounds before a settle message is retried later (each round re-reads). */
const SETTLE_ROUNDS = 3;

/**
 * Applies a settled approval to its delivery. The callback goes out from the message that moved
 * the delivery to done, or from a retry of one (its first callback attempt failed); a message
 * that finds the delivery already done on its first attempt leaves it to that one.
 */
export async function settleApproval(message: Message<unknown>, notice: ApprovalSettledMessage, deps: WebhookQueueDeps): Promise<void> {
  const id = notice.deliveryId;
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    const { delivery, hook } = await readDelivery(deps, id);
    // The approval settled before the run stored its results: come back once they are stored.
    if (delivery.status === "queued" || delivery.status === "running") throw new RetryLater(`delivery ${id} has not stored its results yet`);
    if (delivery.status !== "awaiting_approval") {
      if (delivery.status === "done" && delivery.callbackStatus === "pending" && message.attempts > 1)
        await postCallback(deps, delivery, hook, { status: "done", results: delivery.results ?? [] });
      message.ack();
      return;
    }
    const { results, changed } = await settledResults(deps.env, delivery);
    if (changed.length === 0) {
      // Nothing new to apply: a duplicate, or a call settled by an earlier message.
      message.ack();
      return;
    }
    const status = deliveryStatusOf(results);
    if (!(await settleDeliveryResults(deps.db, id, delivery.results ?? [], results, status, deps.now()))) continue;
    for (const call of changed)
      queueEvent(
        deps,
        delivery.hook,
        "approval_settled",
        id,
        `call ${call.id} (${call.tool}), approval ${call.approval?.id ?? "?"}: ${call.status}${call.error_code === null ? "" : ` ${call.error_code}`}`,
      );
    if (status === "done") {
      const notOk = results.filter((r) => r.status !== "ok").length;
      queueEvent(deps, delivery.hook, "done", id, `${results.length} call(s), ${notOk} not ok, after approval`);
      if (delivery.callbackStatus === "pending") await postCallback(deps, delivery, hook, { status, results });
    }
    message.ack();
    return;
  }
  throw new RetryLater(`delivery ${id}: its results changed under ${SETTLE_ROUNDS} settle attempts in a row`);
}
