/** The daily cron's webhook half: old deliveries (the replay guard) and events go, recent ones stay. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { deleteExpiredDeliveries } from "../../src/webhooks/retention.ts";
import { recordWebhookEvent } from "../../src/webhooks/webhook-events.ts";

const DAY_MS = 86_400_000;

describe("deleteExpiredDeliveries", () => {
  it("deletes deliveries and events older than the retention, and keeps the rest", async () => {
    const now = Date.now();
    for (const [id, age] of [
      ["old-delivery", 31],
      ["new-delivery", 29],
    ] as const) {
      await insertDelivery(env.DB, {
        id,
        hook: "t-retention",
        providerDeliveryId: id,
        receivedAt: now - age * DAY_MS,
        calls: [],
        status: "done",
        callbackPending: false,
      });
      await recordWebhookEvent(env.DB, { hook: "t-retention", outcome: "accepted", deliveryId: id, detail: null, at: now - age * DAY_MS });
    }
    expect(await deleteExpiredDeliveries(env.DB, 30, now)).toEqual({ deliveries: 1, events: 1 });
    const { results } = await env.DB.prepare("SELECT id FROM hook_deliveries WHERE hook = 't-retention'").all<{ id: string }>();
    expect(results.map((r) => r.id)).toEqual(["new-delivery"]);
    const events = await env.DB.prepare("SELECT delivery_id FROM hook_events WHERE hook = 't-retention'").all<{ delivery_id: string }>();
    expect(events.results.map((r) => r.delivery_id)).toEqual(["new-delivery"]);
  });
});
