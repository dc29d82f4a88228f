/** A stored delivery in a given state, written as the queue consumers leave one. */
import { env } from "cloudflare:workers";

/** A delivery of the generic hook that gave up, as the dead-letter consumer leaves one. */
export async function failedDelivery(status = "failed"): Promise<string> {
  const id = `dlv-${crypto.randomUUID()}`;
  const old = Date.now() - 3_600_000;
  await env.DB.prepare(
    `INSERT INTO hook_deliveries (id, hook, provider_delivery_id, received_at, status, calls, attempts, updated_at, error) VALUES (?, 'generic', ?, ?, ?, ?, 3, ?, 'gave up after the queue''s last retry: upstream 503')`,
  )
    .bind(id, id, old, status, JSON.stringify([{ id: "c1", name: "echo", arguments: { text: "once more" } }]), old)
    .run();
  return id;
}
