/**
 * The last step of a finished delivery: POST its results to the webhook's callback URL and
 * record how that went. A receiver that fails is retried with the message; one that refuses, or
 * a callback that cannot be signed, is settled for good.
 */
import { loadConfig } from "../config/config.ts";
import { type Delivery, settleCallback } from "./delivery-store.ts";
import type { DeliveryRun } from "./run-delivery.ts";
import { sendCallback } from "./send-callback.ts";
import { webhookCallbackUrl, webhookSecret } from "./webhook-principal.ts";
import { queueEvent, RetryLater, type WebhookQueueDeps } from "./webhook-queue-deps.ts";
import type { WebhookEntry } from "./webhook-registry.ts";

/** Sends the callback of a delivery whose callback is pending; throws `RetryLater` if it failed. */
export async function postCallback(
  deps: WebhookQueueDeps,
  delivery: Delivery,
  hook: WebhookEntry,
  run: { status: string; results: DeliveryRun["results"] },
): Promise<void> {
  const url = webhookCallbackUrl(deps.env, hook);
  const secret = webhookSecret(deps.env, hook);
  if (url === undefined || secret === undefined) {
    const reason = url === undefined ? "the hook no longer has a callback URL" : `${hook.secretEnv} is not set, so the callback cannot be signed`;
    await settleCallback(deps.db, delivery.id, "failed", reason, deps.now());
    queueEvent(deps, delivery.hook, "callback_failed", delivery.id, reason);
    return;
  }
  const attempt = await sendCallback(url, delivery, run, secret, loadConfig(deps.env).outboundAllow);
  switch (attempt.kind) {
    case "delivered":
      await settleCallback(deps.db, delivery.id, "delivered", null, deps.now());
      queueEvent(deps, delivery.hook, "callback_delivered", delivery.id, `answered ${attempt.status}`);
      return;
    case "refused":
      await settleCallback(deps.db, delivery.id, "refused", attempt.reason, deps.now());
      queueEvent(deps, delivery.hook, "callback_refused", delivery.id, attempt.reason);
      return;
    case "failed":
      await settleCallback(deps.db, delivery.id, "pending", attempt.reason, deps.now());
      throw new RetryLater(attempt.reason);
  }
}
