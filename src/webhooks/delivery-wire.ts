/**
 * A webhook delivery and its events as the admin routes serve them (webhooks-routes.ts): the
 * OpenAPI schemas and the functions that turn stored rows into them.
 */
import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES, type Delivery } from "./delivery-store.ts";
import { WEBHOOK_EVENT_OUTCOMES, type WebhookEvent } from "./webhook-events.ts";
import { webhookKeyId } from "./webhook-principal.ts";

const CallResultWire = z.object({
  id: z.string(),
  tool: z.string(),
  status: z.string().openapi({ description: "ok, error, or pending_approval." }),
  error_code: z.string().nullable(),
  content: z.string(),
  duration_ms: z.number(),
  attempts: z.number().int(),
  approval: z.object({ id: z.string(), expires_at: z.number(), url: z.string() }).optional(),
});

export const EventWire = z
  .object({
    id: z.string(),
    at: z.string(),
    hook: z.string(),
    outcome: z.enum(WEBHOOK_EVENT_OUTCOMES),
    delivery_id: z.string().nullable(),
    detail: z.string().nullable(),
  })
  .openapi("HookEvent");

export const DeliveryWire = z
  .object({
    id: z.string(),
    hook: z.string(),
    key_id: z.string().openapi({ description: "The principal the calls ran as: hook:<name>." }),
    provider_delivery_id: z.string(),
    received_at: z.string(),
    updated_at: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    error: z.string().nullable(),
    attempts: z.number().int(),
    calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.unknown() })),
    results: z.array(CallResultWire).nullable(),
    approvals: z.array(z.object({ call_id: z.string(), id: z.string(), expires_at: z.number(), url: z.string() })),
    callback: z.object({ status: z.enum(["pending", "delivered", "failed", "refused"]), attempts: z.number().int(), error: z.string().nullable() }).nullable(),
    events: z.array(EventWire),
    request_id: z.string().nullable().openapi({
      description:
        "The x-request-id of the POST that delivered it, also on the audit rows of its calls; null for a delivery stored before request ids were kept.",
    }),
    run: z
      .object({
        id: z.string(),
        url: z.string(),
        status: z.string(),
        answer: z.string().nullable(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
      })
      .nullable()
      .openapi({
        description:
          "A run webhook's agent run, once started (`url` is `GET /v1/runs/{id}`): `status` is `running` until the run reports its end, then its final status and answer. `results` then holds the reply call's result.",
      }),
  })
  .openapi("HookDelivery");

/** One webhook event as served. */
export const eventWire = (e: WebhookEvent) => ({
  id: e.id,
  at: new Date(e.at).toISOString(),
  hook: e.hook,
  outcome: e.outcome,
  delivery_id: e.deliveryId,
  detail: e.detail,
});

/** A delivery as served, with its events, approvals and run. */
export function deliveryWire(d: Delivery, events: readonly WebhookEvent[]) {
  const approvals = (d.results ?? []).flatMap((r) => (r.approval === undefined ? [] : [{ call_id: r.id, ...r.approval }]));
  return {
    id: d.id,
    hook: d.hook,
    key_id: webhookKeyId(d.hook),
    provider_delivery_id: d.providerDeliveryId,
    received_at: new Date(d.receivedAt).toISOString(),
    updated_at: new Date(d.updatedAt).toISOString(),
    status: d.status,
    error: d.error,
    attempts: d.attempts,
    calls: d.calls,
    results: d.results,
    approvals,
    callback: d.callbackStatus === null ? null : { status: d.callbackStatus, attempts: d.callbackAttempts, error: d.callbackError },
    events: events.map(eventWire),
    request_id: d.requestId ?? null,
    run: runWire(d),
  };
}

function runWire(d: Delivery) {
  const id = d.runId ?? null;
  if (id === null) return null;
  const outcome = d.runOutcome ?? null;
  return { id, url: `/v1/runs/${id}`, status: outcome?.status ?? "running", answer: outcome?.answer ?? null, error: outcome?.error ?? null };
}
