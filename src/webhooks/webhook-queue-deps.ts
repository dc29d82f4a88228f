/**
 * What every step of the webhook queue consumers shares: the bindings and clock of one batch,
 * the two ways a message can fail, and reading the delivery a message names.
 */
import type { GatewayParts } from "../compose.ts";
import { CorruptDeliveryError } from "./delivery-row.ts";
import { type Delivery, type DeliveryDatabase, getDelivery, noteDeliveryError } from "./delivery-store.ts";
import { recordWebhookEvent, type WebhookEventOutcome } from "./webhook-events.ts";
import { type WebhookEntry, webhookRegistry } from "./webhook-registry.ts";

/** One batch's bindings, parts and clock, handed to every step. */
export interface WebhookQueueDeps {
  env: Env;
  parts: GatewayParts;
  ctx: ExecutionContext;
  db: DeliveryDatabase;
  now: () => number;
}

/** A message that no retry can fix. */
export class PoisonMessage extends Error {
  override readonly name = "PoisonMessage";
}

/** Transient trouble whose message should come back later. */
export class RetryLater extends Error {
  override readonly name = "RetryLater";
}

/** Records a webhook event after the message is handled; an event never holds up the queue. */
export const queueEvent = (deps: WebhookQueueDeps, hook: string, outcome: WebhookEventOutcome, deliveryId: string | null, detail: string | null): void =>
  deps.ctx.waitUntil(recordWebhookEvent(deps.env.DB, { hook, outcome, deliveryId, detail }));

/** The delivery and its webhook; a row that cannot be read, or a webhook gone, is poison. */
export async function readDelivery(deps: WebhookQueueDeps, id: string): Promise<{ delivery: Delivery; hook: WebhookEntry }> {
  let delivery: Delivery | undefined;
  try {
    delivery = await getDelivery(deps.db, id);
  } catch (error) {
    if (!(error instanceof CorruptDeliveryError)) throw error;
    await noteDeliveryError(deps.db, id, error.message, deps.now());
    throw new PoisonMessage(error.message);
  }
  if (delivery === undefined) throw new PoisonMessage(`no delivery ${id} (never stored, or deleted by retention)`);
  const hook = webhookRegistry.get(delivery.hook);
  if (hook === undefined) {
    const reason = `hook '${delivery.hook}' is no longer registered`;
    await noteDeliveryError(deps.db, id, reason, deps.now());
    throw new PoisonMessage(reason);
  }
  return { delivery, hook };
}
