/**
 * Shared by the webhook tests: real signatures computed here with crypto.subtle (independently
 * of src/webhooks/verify-signature.ts), deliveries sent through the Worker's fetch handler, a
 * probe tool that counts its runs, and polling for what the background consumer did.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import type { DeliveryDatabase } from "../../src/webhooks/delivery-store.ts";
import { handleWebhookQueue } from "../../src/webhooks/handle-webhook-queue.ts";
import { HOOKS_QUEUE_NAME } from "../../src/webhooks/webhook-message.ts";
import { defineWebhook, type WebhookSpec, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { api } from "../support/api.ts";
import { testParts } from "../support/dispatch.ts";
import { json } from "../support/json.ts";
import { TEST_WEBHOOK_SECRET } from "../support/test-env.ts";

const encoder = new TextEncoder();

/** Hex HMAC-SHA256 of `data` under `secret`. */
export async function hmacHex(secret: string, data: string | Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, typeof data === "string" ? encoder.encode(data) : data);
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** POSTs raw bytes to a webhook, with the given headers and JSON content type. */
export function post(hook: string, body: string | Uint8Array, headers: Record<string, string>): Promise<Response> {
  return exports.default.fetch(`https://toolgate.test/v1/hooks/${hook}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

/** GitHub's headers for a body: signature over the raw bytes, a delivery id and an event name. */
export async function githubHeaders(
  body: string,
  { secret = TEST_WEBHOOK_SECRET, delivery = crypto.randomUUID(), event = "push" } = {},
): Promise<Record<string, string>> {
  return { "x-hub-signature-256": `sha256=${await hmacHex(secret, body)}`, "x-github-delivery": delivery, "x-github-event": event };
}

/** Stripe-style `t=...,v1=...` over "<t>.<body>". */
export async function stripeHeaders(body: string, { secret = TEST_WEBHOOK_SECRET, t = nowSeconds() } = {}): Promise<Record<string, string>> {
  return { "stripe-signature": `t=${t},v1=${await hmacHex(secret, `${t}.${body}`)}` };
}

/** Slack's `v0` signature over "v0:<t>:<body>", with its timestamp header. */
export async function slackHeaders(body: string, { secret = TEST_WEBHOOK_SECRET, t = nowSeconds() } = {}): Promise<Record<string, string>> {
  return { "x-slack-request-timestamp": String(t), "x-slack-signature": `v0=${await hmacHex(secret, `v0:${t}:${body}`)}` };
}

/** toolgate's generic scheme over "<t>.<body>". */
export async function genericHeaders(
  body: string,
  { secret = TEST_WEBHOOK_SECRET, t = nowSeconds(), delivery }: { secret?: string; t?: number; delivery?: string } = {},
): Promise<Record<string, string>> {
  return {
    "x-toolgate-timestamp": String(t),
    "x-toolgate-signature-256": `sha256=${await hmacHex(secret, `${t}.${body}`)}`,
    ...(delivery === undefined ? {} : { "x-toolgate-delivery": delivery }),
  };
}

/** Runs of `hook_probe`, by its `key` argument (the test isolate is the Worker's, so this is shared). */
export const probeRuns = new Map<string, number>();

/** A tool in its own toolset `hooktest`, counting runs per key; `fail` makes it throw. */
export function registerProbeTool(): void {
  if (registry.has("hook_probe")) return;
  registry.register({
    name: "hook_probe",
    toolset: "hooktest",
    schema: z.object({ key: z.string(), fail: z.boolean().default(false) }).describe("Counts its runs per key."),
    handler: ({ key, fail }) => {
      probeRuns.set(key, (probeRuns.get(key) ?? 0) + 1);
      if (fail) throw new Error(`probe ${key} failed on purpose`);
      return { key, runs: probeRuns.get(key) };
    },
  });
}

const ProbeKeys = z.object({ keys: z.array(z.string()) });

/** Registers a test webhook (once per name) whose body `{keys: [...]}` maps to one hook_probe call per key. */
export function registerProbeWebhook(name: string, overrides: Partial<WebhookSpec> = {}): void {
  registerProbeTool();
  if (webhookRegistry.get(name) !== undefined) return;
  const base: WebhookSpec<typeof ProbeKeys> = {
    name,
    description: `test hook ${name}`,
    verify: "hmac",
    secretEnv: "HOOK_TEST_SECRET",
    toolsets: ["hooktest"],
    payload: ProbeKeys,
    map: ({ payload }) => payload.keys.map((key, i) => ({ id: `probe_${i}`, name: "hook_probe", arguments: { key } })),
  };
  const outcome = webhookRegistry.register({ ...defineWebhook(base), ...overrides });
  expect(outcome).toEqual({ ok: true });
}

export interface DeliveryView {
  id: string;
  hook: string;
  status: string;
  error: string | null;
  attempts: number;
  results: { id: string; tool: string; status: string; error_code: string | null; content: string }[] | null;
  callback: { status: string; attempts: number; error: string | null } | null;
  events: { outcome: string; detail: string | null }[];
}

/** Polls GET /v1/hooks/deliveries/{id} until `done(view)`; fails with the last view when `timeoutMs` passes first. */
export function waitForDelivery(
  id: string,
  done: (view: DeliveryView) => boolean = (v) => v.status !== "queued" && v.status !== "running",
  timeoutMs = 10_000,
): Promise<DeliveryView> {
  return vi.waitFor(
    async () => {
      const res = await api(`/v1/hooks/deliveries/${id}`);
      expect(res.status).toBe(200);
      const view = await json<DeliveryView>(res);
      if (!done(view)) throw new Error(`delivery ${id} is not there yet: ${JSON.stringify(view)}`);
      return view;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/** Rows of hook_events for a webhook once there are `atLeast` (written in waitUntil, so polled). */
export function webhookEvents(hook: string, atLeast = 1, timeoutMs = 5_000): Promise<{ outcome: string; delivery_id: string | null; detail: string | null }[]> {
  return vi.waitFor(
    async () => {
      const { results } = await env.DB.prepare("SELECT outcome, delivery_id, detail FROM hook_events WHERE hook = ? ORDER BY at, id")
        .bind(hook)
        .all<{ outcome: string; delivery_id: string | null; detail: string | null }>();
      if (results.length < atLeast) throw new Error(`expected ${atLeast} hook_events of ${hook}, found ${JSON.stringify(results)}`);
      return results;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

export type Verdict = "ack" | { retryAfter: number | undefined };

/** Hands one message to the consumer, as the platform would, and says what it did with it. */
export async function consume(
  body: unknown,
  { queue = HOOKS_QUEUE_NAME, attempts = 1, db, workerEnv = env }: { queue?: string; attempts?: number; db?: DeliveryDatabase; workerEnv?: Env } = {},
): Promise<Verdict> {
  let verdict: Verdict | undefined;
  const message: Message<unknown> = {
    id: crypto.randomUUID(),
    timestamp: new Date(),
    attempts,
    body,
    ack: () => (verdict ??= "ack"),
    retry: (options?: QueueRetryOptions) => (verdict ??= { retryAfter: options?.delaySeconds }),
  };
  const batch = {
    queue,
    messages: [message],
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
    ackAll: () => undefined,
    retryAll: () => undefined,
  } as MessageBatch<unknown>;
  const ctx = createExecutionContext();
  await handleWebhookQueue(batch, workerEnv, ctx, testParts, db === undefined ? {} : { db });
  await waitOnExecutionContext(ctx);
  if (verdict === undefined) throw new Error("the consumer neither acked nor retried the message");
  return verdict;
}
