/**
 * `POST /v1/hooks/{name}`: the edge of a webhook delivery. It authenticates by the webhook's
 * signature (providers cannot send our Bearer key; app.ts exempts exactly this path from it),
 * stores the delivery, queues it and answers 202 before any call runs. In order:
 *
 * size (413) → secret configured (401) → signature and timestamp (401) → JSON (415/400) →
 * payload schema (400) → the sender's URL handshake, if it is one (200 with the webhook's answer) →
 * mapping or the run's plan (400) → replay check (200 with the first delivery) → queue → 202.
 *
 * Every outcome after the webhook lookup is written to `hook_events`.
 */
import type { Context } from "hono";
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES, shapeProblem } from "../arguments/argument-shape.ts";
import { loadConfig } from "../config/config.ts";
import { jsonText } from "../http/json-text.ts";
import { readRawBody } from "../http/read-raw-body.ts";
import { type FailureResponse, failureResponse, type RequestFailure } from "../http/request-failure.ts";
import type { AppEnv } from "../http/types.ts";
import { currentRequestId } from "../tracing/request-context.ts";
import { type DeliveryStatus, deleteDelivery, insertDelivery, type RunPlan, type StoredCall } from "./delivery-store.ts";
import { planRun } from "./plan-run.ts";
import { verifySignature } from "./verify-signature.ts";
import { recordWebhookEvent, type WebhookEventOutcome } from "./webhook-events.ts";
import type { WebhookMessage } from "./webhook-message.ts";
import { webhookCallbackUrl, webhookSecret } from "./webhook-principal.ts";
import { type WebhookEntry, webhookRegistry } from "./webhook-registry.ts";

const DELIVERY_PATH = /^\/v1\/hooks\/[^/]+$/;

/** Whether a request is a webhook delivery, the one /v1 route authenticated by signature. */
export function isWebhookDelivery(method: string, path: string): boolean {
  return method === "POST" && DELIVERY_PATH.test(path);
}

/** A sender's id must fit the column and read as an id; a webhook's own function may return anything. */
const PROVIDER_ID = /^[\x21-\x7e]{1,200}$/;

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Handles one delivery to the named webhook; typed by each answer's status, as the route declares them. */
export async function acceptDelivery(c: Context<AppEnv>, name: string) {
  const hook = webhookRegistry.get(name);
  if (hook === undefined) return failureResponse(c, { kind: "unknown_hook", name });
  const config = loadConfig(c.env);
  // Always served by the Worker's fetch handler, so an ExecutionContext exists.
  const waitUntil = (promise: Promise<unknown>): void => c.executionCtx.waitUntil(promise);
  const refuse = <F extends RequestFailure>(outcome: WebhookEventOutcome, failure: F, detail: string): FailureResponse<F> => {
    waitUntil(recordWebhookEvent(c.env.DB, { hook: hook.name, outcome, deliveryId: null, detail }));
    return failureResponse(c, failure);
  };

  const body = await readRawBody(c.req.raw, config.maxBodyBytes);
  if (!body.ok) return refuse("too_large", { kind: "payload_too_large", limitBytes: config.maxBodyBytes }, `body over ${config.maxBodyBytes} bytes`);

  const secret = webhookSecret(c.env, hook);
  if (secret === undefined) {
    const detail = `${hook.secretEnv} is not set`;
    return refuse("no_secret", { kind: "hook_refused", reason: "no_secret", detail }, detail);
  }
  const verdict = await verifySignature(hook.verify, secret, body.bytes, c.req.raw.headers, Date.now());
  if (!verdict.ok) return refuse(verdict.reason, { kind: "hook_refused", reason: verdict.reason, detail: verdict.detail }, verdict.detail);

  const contentType = c.req.header("content-type");
  if (contentType === undefined || !/^application\/json\b/i.test(contentType.trim())) {
    return refuse("unsupported_media_type", { kind: "unsupported_media_type", received: contentType }, `content-type ${contentType ?? "none"}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(body.bytes));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return refuse("malformed_payload", { kind: "malformed_body", detail }, detail);
  }

  const mapped = mapPayload(hook, json, c.req.raw.headers, c.env, config.maxToolCalls);
  if (!mapped.ok) return refuse("rejected_payload", mapped.failure, mapped.detail);
  if ("handshake" in mapped) {
    waitUntil(recordWebhookEvent(c.env.DB, { hook: hook.name, outcome: "handshake", deliveryId: null, detail: "the sender checked the URL; nothing runs" }));
    return jsonText<unknown>(c, mapped.handshake, 200);
  }

  const providerDeliveryId = mapped.deliveryId ?? verdict.deliveryId;
  const deliveryId = crypto.randomUUID();
  const now = Date.now();
  // A delivery with nothing to do (no calls, no run) is done on arrival.
  const hasCalls = mapped.calls.length > 0 || mapped.runPlan !== undefined;
  const stored = await insertDelivery(c.env.DB, {
    id: deliveryId,
    hook: hook.name,
    providerDeliveryId,
    receivedAt: now,
    calls: mapped.calls,
    status: hasCalls ? "queued" : "done",
    callbackPending: hasCalls && webhookCallbackUrl(c.env, hook) !== undefined,
    requestId: currentRequestId() ?? crypto.randomUUID(),
    ...(mapped.runPlan === undefined ? {} : { runPlan: mapped.runPlan }),
  });
  if (!stored.inserted) {
    waitUntil(recordWebhookEvent(c.env.DB, { hook: hook.name, outcome: "replay", deliveryId: stored.first.id, detail: `sender id ${providerDeliveryId}` }));
    return c.json({ delivery_id: stored.first.id, hook: hook.name, status: stored.first.status, replay: true }, 200);
  }

  if (hasCalls) {
    try {
      await c.env.HOOKS_QUEUE.send({ deliveryId } satisfies WebhookMessage, { contentType: "json" });
    } catch (error) {
      // Unqueued, the row would make the sender's retry look like a replay and never run.
      await deleteDelivery(c.env.DB, deliveryId);
      const detail = `queue refused the delivery: ${String(error)}`;
      return refuse("queue_unavailable", { kind: "unavailable", message: "The delivery could not be queued; nothing was run.", retryAfterSeconds: 30 }, detail);
    }
  }
  waitUntil(
    recordWebhookEvent(c.env.DB, {
      hook: hook.name,
      outcome: "accepted",
      deliveryId,
      detail: `${mapped.runPlan === undefined ? `${mapped.calls.length} call(s)` : "an agent run"}; sender id ${providerDeliveryId}`,
      at: now,
    }),
  );
  const status: DeliveryStatus = hasCalls ? "queued" : "done";
  return c.json(
    {
      delivery_id: deliveryId,
      hook: hook.name,
      status,
      calls: mapped.calls.length,
      ...(hook.run === undefined ? {} : { run: mapped.runPlan !== undefined }),
      replay: false,
    },
    202,
  );
}

type Mapped =
  | { ok: true; calls: StoredCall[]; runPlan: RunPlan | undefined; deliveryId: string | undefined }
  /** The webhook's answer to the sender's URL check, as JSON text. */
  | { ok: true; handshake: string }
  | { ok: false; failure: Extract<RequestFailure, { kind: "invalid_request" | "too_many_calls" }>; detail: string };

/** The webhook's schema and mapping, with whatever they throw turned into a 400 that names it. */
function mapPayload(hook: WebhookEntry, json: unknown, headers: Headers, env: Env, maxCalls: number): Mapped {
  const parsed = hook.payload.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
    return { ok: false, failure: { kind: "invalid_request", issues }, detail: issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; ") };
  }
  const input = { payload: parsed.data, headers, env };
  let calls: StoredCall[] = [];
  let runPlan: RunPlan | undefined;
  let deliveryId: string | undefined;
  try {
    const handshake = hook.handshake?.(input);
    // Serialised here, so an answer JSON cannot hold (a BigInt, a cycle) is the webhook's 400 too.
    if (handshake !== undefined) return { ok: true, handshake: JSON.stringify(handshake) ?? "null" };
    if (hook.run !== undefined) runPlan = planRun(hook.run, input);
    else calls = (hook.map?.(input) ?? []).map((call, i) => ({ id: call.id ?? `call_${i}`, name: call.name, arguments: call.arguments }));
    deliveryId = hook.deliveryId?.(input);
  } catch (error) {
    const message = `the hook could not map this payload: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, failure: { kind: "invalid_request", issues: [{ path: "", message }] }, detail: message };
  }
  if (calls.length > maxCalls) {
    return { ok: false, failure: { kind: "too_many_calls", count: calls.length, limit: maxCalls }, detail: `${calls.length} calls, limit ${maxCalls}` };
  }
  const oversized = oversizedArguments(calls, runPlan);
  if (oversized !== undefined) return { ok: false, failure: { kind: "invalid_request", issues: [{ path: "", message: oversized }] }, detail: oversized };
  if (deliveryId !== undefined && !PROVIDER_ID.test(deliveryId)) {
    const message = `the hook's deliveryId must be 1-200 printable ASCII characters, got ${JSON.stringify(deliveryId.slice(0, 50))}`;
    return { ok: false, failure: { kind: "invalid_request", issues: [{ path: "", message }] }, detail: message };
  }
  return { ok: true, calls, runPlan, deliveryId };
}

/**
 * Why a mapped call's (or the reply's) arguments are refused before they are stored, if they
 * are: a webhook may pass payload values through, and a payload may nest as deep as the body
 * cap allows (JSON.parse does not recurse). Such calls would be stored and queued only for each
 * to be refused at its parse stage (the same caps), after JSON.stringify, the row, the queue and
 * every later read had walked them, and JSON.stringify recurses (it overflowed on pins 10,000
 * levels deep). So the sender gets the 400 now, naming the call and where it is too deep.
 */
function oversizedArguments(calls: readonly StoredCall[], runPlan: RunPlan | undefined): string | undefined {
  const mapped = runPlan?.reply === undefined ? calls : [...calls, { id: "reply", name: runPlan.reply.name, arguments: runPlan.reply.arguments }];
  for (const call of mapped) {
    if (typeof call.arguments !== "object" || call.arguments === null) continue;
    const problem = shapeProblem(call.arguments);
    if (problem === undefined) continue;
    const what =
      "tooDeep" in problem ? `nested deeper than ${MAX_ARGUMENT_DEPTH} levels (at ${problem.tooDeep})` : `holding more than ${MAX_ARGUMENT_VALUES} values`;
    return `the hook mapped this payload to arguments for ${call.name} (${call.id}) ${what}; no tool takes arguments that large`;
  }
  return undefined;
}
