/**
 * The webhook queues' consumer, driven message by message against the real D1, with faults
 * injected into D1 and the callback receiver: claims that make runs happen once, transient
 * failures retried with backoff, poison retried into the dead-letter queue (there, and through
 * the real local queue), and signed callbacks.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { HOOKS_DLQ_NAME } from "../../src/webhooks/webhook-message.ts";
import { type Fault, flakyDatabase } from "../audit/support.ts";
import { consume, probeRuns, registerProbeWebhook, waitForDelivery, webhookEvents } from "./support.ts";

/** Stores a queued delivery of `keys` for `hook` without sending a message, and returns its id. */
async function stored(hook: string, keys: string[], { callback = false } = {}): Promise<string> {
  const id = crypto.randomUUID();
  const calls = keys.map((key, i) => ({ id: `probe_${i}`, name: "hook_probe", arguments: { key } }));
  await insertDelivery(env.DB, { id, hook, providerDeliveryId: id, receivedAt: Date.now(), calls, status: "queued", callbackPending: callback });
  return id;
}

const failing = (calls: readonly number[], fault: Fault = "before") => flakyDatabase(env.DB, (n) => (calls.includes(n) ? fault : "ok"));

describe("running a delivery", () => {
  it("runs a queued delivery once and acks; a redelivered message for it then acks without running", async () => {
    registerProbeWebhook("q-once");
    const id = await stored("q-once", ["q-once"]);
    expect(await consume({ deliveryId: id })).toBe("ack");
    expect(await consume({ deliveryId: id }, { attempts: 2 })).toBe("ack");
    expect(probeRuns.get("q-once")).toBe(1);
    expect((await waitForDelivery(id)).status).toBe("done");
  });

  it("two consumers holding the same message run its calls once", async () => {
    registerProbeWebhook("q-race");
    const id = await stored("q-race", ["q-race"]);
    const verdicts = await Promise.all([consume({ deliveryId: id }), consume({ deliveryId: id })]);
    expect(verdicts).toContain("ack");
    expect(probeRuns.get("q-race")).toBe(1);
  });

  it("retries with backoff when storing the results fails, and the retry stores them without running the calls again", async () => {
    registerProbeWebhook("q-transient");
    const id = await stored("q-transient", ["q-transient"]);
    // Run calls on the flaky D1: 1 is the claim, 2 the results write (fails), 3 the error note.
    const db = failing([2]);
    expect(await consume({ deliveryId: id }, { db })).toEqual({ retryAfter: 2 });
    const between = await waitForDelivery(id, () => true);
    expect(between).toMatchObject({ status: "running", error: expect.stringContaining("injected failure") });
    expect(await consume({ deliveryId: id }, { db, attempts: 2 })).toBe("ack");
    expect(probeRuns.get("q-transient")).toBe(1);
    expect((await waitForDelivery(id)).results?.[0]).toMatchObject({ status: "ok" });
    expect(db.faults.before).toBe(1);
  });

  it("retries with a growing delay when D1 is unreachable before the claim, and nothing runs", async () => {
    registerProbeWebhook("q-down");
    const id = await stored("q-down", ["q-down"]);
    const down = flakyDatabase(env.DB, () => "before");
    expect(await consume({ deliveryId: id }, { db: down, attempts: 3 })).toEqual({ retryAfter: 8 });
    expect(probeRuns.get("q-down")).toBeUndefined();
    expect((await waitForDelivery(id, () => true)).status).toBe("queued");
  });

  it("fails a run that was interrupted past the batch deadline instead of running its calls again", async () => {
    registerProbeWebhook("q-stale");
    const id = await stored("q-stale", ["q-stale"]);
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'running', claimed_at = ? WHERE id = ?")
      .bind(Date.now() - 3_600_000, id)
      .run();
    expect(await consume({ deliveryId: id })).toBe("ack");
    expect(await waitForDelivery(id, () => true)).toMatchObject({ status: "failed", error: expect.stringContaining("not run again") });
    expect(probeRuns.get("q-stale")).toBeUndefined();
  });

  it("retries a run another consumer holds, without running it", async () => {
    registerProbeWebhook("q-held");
    const id = await stored("q-held", ["q-held"]);
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'running', claimed_at = ? WHERE id = ?").bind(Date.now(), id).run();
    expect(await consume({ deliveryId: id })).toEqual({ retryAfter: 2 });
    expect(probeRuns.get("q-held")).toBeUndefined();
  });
});

describe("poison messages", () => {
  it.each([
    ["a body that is not a delivery message", () => Promise.resolve({ hello: "world" })],
    ["a delivery that does not exist", () => Promise.resolve({ deliveryId: crypto.randomUUID() })],
  ])("%s is retried at once, to reach the dead-letter queue without waiting out the backoff", async (_case, body) => {
    expect(await consume(await body())).toEqual({ retryAfter: undefined });
  });

  it("a delivery whose stored calls cannot be read is retried at once with the reason kept, and the dead-letter consumer fails it with that reason", async () => {
    registerProbeWebhook("q-corrupt");
    const id = await stored("q-corrupt", ["q-corrupt"]);
    await env.DB.prepare("UPDATE hook_deliveries SET calls = 'not json' WHERE id = ?").bind(id).run();
    expect(await consume({ deliveryId: id })).toEqual({ retryAfter: undefined });
    expect(await consume({ deliveryId: id }, { queue: HOOKS_DLQ_NAME, attempts: 9 })).toBe("ack");
    const row = await env.DB.prepare("SELECT status, error FROM hook_deliveries WHERE id = ?").bind(id).first<{ status: string; error: string }>();
    expect(row?.status).toBe("failed");
    expect(row?.error).toMatch(/^gave up after the queue's last retry: .*unreadable stored calls/);
    expect((await webhookEvents("q-corrupt")).map((e) => e.outcome)).toEqual(["dead_lettered"]);
  });

  it("through the real queue, a poison delivery ends in the dead-letter queue and is failed with its reason", { timeout: 90_000 }, async () => {
    registerProbeWebhook("q-dlq-real");
    const id = await stored("q-dlq-real", ["q-dlq-real"]);
    await env.DB.prepare("UPDATE hook_deliveries SET calls = '[' WHERE id = ?").bind(id).run();
    await env.HOOKS_QUEUE.send({ deliveryId: id });
    await expect
      .poll(() => env.DB.prepare("SELECT status, error FROM hook_deliveries WHERE id = ?").bind(id).first(), { timeout: 80_000, interval: 250 })
      .toMatchObject({ status: "failed", error: expect.stringContaining("unreadable stored calls") });
    expect((await webhookEvents("q-dlq-real")).map((e) => [e.outcome, e.delivery_id])).toEqual([["dead_lettered", id]]);
    expect(probeRuns.get("q-dlq-real")).toBeUndefined();
  });
});

describe("callbacks", () => {
  it("POSTs the results signed with the hook's secret, retrying a failed attempt without running the calls again", async () => {
    registerProbeWebhook("q-callback", { callbackUrl: "http://upstream.test/hook-callback/flaky" });
    const id = await stored("q-callback", ["q-callback"], { callback: true });
    // The receiver answers 503 first, then 200 only if the signature checks out.
    expect(await consume({ deliveryId: id })).toEqual({ retryAfter: 2 });
    expect((await waitForDelivery(id, () => true)).callback).toMatchObject({ status: "pending", attempts: 1, error: "the callback URL answered 503" });
    expect(await consume({ deliveryId: id }, { attempts: 2 })).toBe("ack");
    expect((await waitForDelivery(id, () => true)).callback).toEqual({ status: "delivered", attempts: 2, error: null });
    expect(probeRuns.get("q-callback")).toBe(1);
    expect((await webhookEvents("q-callback", 2)).map((e) => e.outcome)).toEqual(["done", "callback_delivered"]);
  });

  it("the receiver refuses a callback signed with another secret, so it stays pending and is retried", async () => {
    registerProbeWebhook("q-callback-badsig", { callbackUrl: "http://upstream.test/hook-callback/ok" });
    const id = await stored("q-callback-badsig", ["q-callback-badsig"], { callback: true });
    const otherSecret = { ...env, HOOK_TEST_SECRET: "a-different-secret" } as Env;
    expect(await consume({ deliveryId: id }, { workerEnv: otherSecret })).toEqual({ retryAfter: 2 });
    expect((await waitForDelivery(id, () => true)).callback).toMatchObject({ status: "pending", error: "the callback URL answered 401" });
    expect(await consume({ deliveryId: id }, { attempts: 2 })).toBe("ack");
    expect((await waitForDelivery(id, () => true)).callback?.status).toBe("delivered");
  });

  it("a callback still failing after the last retry is marked failed by the dead-letter consumer, with its last error", async () => {
    registerProbeWebhook("q-callback-dlq", { callbackUrl: "http://upstream.test/hook-callback/flaky" });
    const id = await stored("q-callback-dlq", ["q-callback-dlq"], { callback: true });
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'done', results = '[]', callback_error = 'the callback URL answered 503' WHERE id = ?")
      .bind(id)
      .run();
    expect(await consume({ deliveryId: id }, { queue: HOOKS_DLQ_NAME, attempts: 9 })).toBe("ack");
    const view = await waitForDelivery(id, () => true);
    expect(view).toMatchObject({
      status: "done",
      error: null,
      callback: { status: "failed", error: "gave up after the queue's last retry: the callback URL answered 503" },
    });
    expect((await webhookEvents("q-callback-dlq")).map((e) => e.outcome)).toEqual(["callback_failed"]);
  });

  it("refuses a callback URL the outbound guard refuses, once, without retrying", async () => {
    registerProbeWebhook("q-callback-ssrf", { callbackUrl: "http://127.0.0.1:9220/steal" });
    const id = await stored("q-callback-ssrf", ["q-callback-ssrf"], { callback: true });
    expect(await consume({ deliveryId: id })).toBe("ack");
    const view = await waitForDelivery(id, () => true);
    expect(view.status).toBe("done");
    expect(view.callback).toMatchObject({ status: "refused", attempts: 1, error: expect.stringContaining("outbound guard") });
    expect((await webhookEvents("q-callback-ssrf", 2)).map((e) => e.outcome)).toEqual(["done", "callback_refused"]);
  });
});
