/**
 * The webhook routes. `POST /v1/hooks/{name}` is the one /v1 route authenticated by the webhook's
 * signature instead of a key (accept-delivery.ts); reading deliveries, events and the webhook list
 * needs an admin key, because a webhook's calls run as the webhook's own principal, which is nobody's
 * key (the audit routes follow the same rule: only admins see other principals' records).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { requireRole } from "../auth/require-role.ts";
import { failureResponse, validationHook } from "../http/request-failure.ts";
import { errorBodySchema, errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { acceptDelivery } from "./accept-delivery.ts";
import { DELIVERY_STATUSES, failDelivery, getDelivery, requeueDelivery } from "./delivery-store.ts";
import { DeliveryWire, deliveryWire, EventWire, eventWire } from "./delivery-wire.ts";
import { type SupersededRun, supersedeRun } from "./supersede-run.ts";
import { listWebhookEvents, recordWebhookEvent, WEBHOOK_EVENT_OUTCOMES } from "./webhook-events.ts";
import type { WebhookMessage } from "./webhook-message.ts";
import { webhookCallbackUrl, webhookKeyId, webhookSecret } from "./webhook-principal.ts";
import { webhookRegistry } from "./webhook-registry.ts";

const errorBody = (description: string) => ({ description, content: { "application/json": { schema: errorBodySchema() } } });

const Accepted = z
  .object({
    delivery_id: z.string(),
    hook: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    calls: z.number().int().optional(),
    run: z.boolean().optional().openapi({ description: "A run webhook: whether this delivery starts an agent run (false when the payload asks for none)." }),
    replay: z.boolean(),
  })
  .openapi("HookDeliveryAccepted");

const Handshake = z.unknown().openapi("HookHandshake", { description: "The hook's answer to the sender's URL check, as its handshake function returned it." });

const postDelivery = createRoute({
  method: "post",
  path: "/v1/hooks/{name}",
  summary: "Deliver a webhook event",
  description:
    "Authenticated by the hook's signature, not a Bearer key: `X-Hub-Signature-256` (GitHub), `Stripe-Signature` (Stripe-style) or `X-Toolgate-Signature-256` with `X-Toolgate-Timestamp` (generic), over the raw body. Answers 202 before any call runs; the calls run in the background. A replay of a delivery already seen answers 200 with the first delivery's id and status, and runs nothing.",
  security: [],
  request: { params: z.object({ name: z.string().openapi({ example: "github" }) }) },
  responses: {
    202: { description: "Verified and queued (or done, when the payload maps to no calls).", content: { "application/json": { schema: Accepted } } },
    200: {
      description:
        "A replay: the first delivery's id and status; nothing runs again. Or the sender's URL check (Slack's url_verification), answered with the hook's own JSON.",
      content: { "application/json": { schema: z.union([Accepted, Handshake]) } },
    },
    400: errorBody("The body is not JSON, or the hook's payload schema or mapping refused it."),
    401: errorBody("Missing or wrong signature, a timestamp outside 5 minutes, or the hook has no secret configured."),
    404: errorBody("No hook has this name."),
    413: errorBody("The body is over MAX_BODY_BYTES, or maps to more than MAX_TOOL_CALLS calls."),
    415: errorBody("The body is not sent as application/json."),
    503: errorBody("The delivery could not be queued; nothing ran. Send it again."),
  },
});

const getDeliveryRoute = createRoute({
  method: "get",
  path: "/v1/hooks/deliveries/{id}",
  summary: "A webhook delivery: its status and each call's result",
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: { description: "The delivery.", content: { "application/json": { schema: DeliveryWire } } },
    ...errorResponses(403, 404),
  },
});

const rerunDeliveryRoute = createRoute({
  method: "post",
  path: "/v1/hooks/deliveries/{id}/rerun",
  summary: "Run a failed (or dead-lettered) delivery's calls again",
  description:
    "Queues the delivery again with its stored calls; its results, error and callback start over. Only a `failed` delivery can be re-run (409 otherwise). A run webhook's delivery starts a new run: the run of its earlier attempt, if still going or waiting on approval, is cancelled first as superseded and its pending approvals denied (503 if that cannot be done; the delivery stays failed).",
  request: { params: z.object({ id: z.string() }) },
  responses: {
    202: { description: "Queued again.", content: { "application/json": { schema: DeliveryWire } } },
    ...errorResponses(403, 404, 409, 503),
  },
});

const listEventsRoute = createRoute({
  method: "get",
  path: "/v1/hooks/events",
  summary: "Webhook delivery outcomes, newest first, refusals included",
  request: {
    query: z.object({
      hook: z.string().min(1).max(64).optional(),
      delivery_id: z.string().min(1).max(64).optional(),
      outcome: z.enum(WEBHOOK_EVENT_OUTCOMES).optional(),
      before: z
        .string()
        .regex(/^\d{1,15}$/, "must be epoch milliseconds (the `at` of the last event of the previous page)")
        .optional(),
      limit: z
        .string()
        .regex(/^(?:[1-9]\d?|1\d\d|200)$/, "must be a whole number from 1 to 200")
        .optional(),
    }),
  },
  responses: {
    200: { description: "Events.", content: { "application/json": { schema: z.object({ events: z.array(EventWire) }).openapi("HookEvents") } } },
    ...errorResponses(400, 403),
  },
});

const listWebhooksRoute = createRoute({
  method: "get",
  path: "/v1/hooks",
  summary: "The registered webhooks",
  responses: {
    200: {
      description: "Every hook, sorted by name.",
      content: {
        "application/json": {
          schema: z
            .object({
              hooks: z.array(
                z.object({
                  name: z.string(),
                  description: z.string(),
                  path: z.string(),
                  verify: z.string(),
                  secret_env: z.string(),
                  secret_configured: z.boolean(),
                  toolsets: z.array(z.string()),
                  key_id: z.string(),
                  callback: z.boolean(),
                }),
              ),
            })
            .openapi("Hooks"),
        },
      },
    },
    ...errorResponses(403),
  },
});

const adminOnly = requireRole("admin");

export const webhooksRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
webhooksRoutes.use("/v1/hooks/deliveries/*", adminOnly);
webhooksRoutes.get("/v1/hooks/events", adminOnly);
webhooksRoutes.get("/v1/hooks", adminOnly);

webhooksRoutes
  .openapi(listWebhooksRoute, (c) => {
    const hooks = webhookRegistry.names().flatMap((name) => {
      const hook = webhookRegistry.get(name);
      if (hook === undefined) return [];
      return [
        {
          name,
          description: hook.description,
          path: `/v1/hooks/${name}`,
          verify: hook.verify,
          secret_env: hook.secretEnv,
          secret_configured: webhookSecret(c.env, hook) !== undefined,
          toolsets: [...hook.toolsets],
          key_id: webhookKeyId(name),
          callback: webhookCallbackUrl(c.env, hook) !== undefined,
        },
      ];
    });
    return c.json({ hooks }, 200);
  })
  .openapi(listEventsRoute, async (c) => {
    const q = c.req.valid("query");
    const events = await listWebhookEvents(c.env.DB, {
      limit: q.limit === undefined ? 50 : Number(q.limit),
      ...(q.hook === undefined ? {} : { hook: q.hook }),
      ...(q.delivery_id === undefined ? {} : { deliveryId: q.delivery_id }),
      ...(q.outcome === undefined ? {} : { outcome: q.outcome }),
      ...(q.before === undefined ? {} : { before: Number(q.before) }),
    });
    return c.json({ events: events.map(eventWire) }, 200);
  })
  .openapi(getDeliveryRoute, async (c) => {
    const { id } = c.req.valid("param");
    const delivery = await getDelivery(c.env.DB, id);
    if (delivery === undefined) return failureResponse(c, { kind: "unknown_delivery", id });
    const events = await listWebhookEvents(c.env.DB, { deliveryId: id, limit: 100 });
    return c.json(deliveryWire(delivery, events), 200);
  })
  .openapi(rerunDeliveryRoute, async (c) => {
    const { id } = c.req.valid("param");
    const delivery = await getDelivery(c.env.DB, id);
    if (delivery === undefined) return failureResponse(c, { kind: "unknown_delivery", id });
    const hook = webhookRegistry.get(delivery.hook);
    const callbackPending = hook !== undefined && webhookCallbackUrl(c.env, hook) !== undefined;
    const conflict = () => failureResponse(c, { kind: "conflict", message: `Delivery ${id} is ${delivery.status}; only a failed delivery can be re-run.` });
    if (delivery.status !== "failed") return conflict();
    let superseded: SupersededRun | undefined;
    try {
      superseded = await supersedeRun(c.env, delivery, c.get("principal").keyId);
    } catch (error) {
      console.error(`hooks: re-run of delivery ${id} refused, its earlier run could not be cancelled: ${String(error)}`);
      return failureResponse(c, {
        kind: "unavailable",
        message: "The run of the delivery's earlier attempt could not be cancelled, so no new one is started; the delivery stays failed. Try the re-run again.",
        retryAfterSeconds: 30,
      });
    }
    if (!(await requeueDelivery(c.env.DB, id, callbackPending, Date.now()))) return conflict();
    try {
      await c.env.HOOKS_QUEUE.send({ deliveryId: id } satisfies WebhookMessage, { contentType: "json" });
    } catch (error) {
      // Unqueued, it would sit as queued forever: it goes back to failed, saying why.
      await failDelivery(c.env.DB, id, `a re-run could not be queued: ${String(error)}`, Date.now());
      return failureResponse(c, { kind: "unavailable", message: "The delivery could not be queued again; it stays failed.", retryAfterSeconds: 30 });
    }
    const supersededDetail =
      superseded?.cancelled === true ? `; run ${superseded.runId} of the earlier attempt cancelled, ${superseded.denied} approval(s) denied` : "";
    await recordWebhookEvent(c.env.DB, {
      hook: delivery.hook,
      outcome: "requeued",
      deliveryId: id,
      detail: `re-run by key ${c.get("principal").keyId}${supersededDetail}`,
    });
    const [again, events] = await Promise.all([getDelivery(c.env.DB, id), listWebhookEvents(c.env.DB, { deliveryId: id, limit: 100 })]);
    return c.json(deliveryWire(again ?? delivery, events), 202);
  })
  .openapi(postDelivery, (c) => acceptDelivery(c, c.req.valid("param").name));
