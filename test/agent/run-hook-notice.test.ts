/**
 * A webhook run's end notice when the hooks queue refuses it: the Run object keeps its record
 * unnotified, sets its alarm as the retry, and once the queue takes the notice the delivery
 * finishes, its outcome recorded once, and the object's alarm goes back to its retention.
 *
 * The queue refuses for real: the notice is made larger than a Queues message may be (128 KB)
 * by the delivery id it carries, which the real binding rejects as it would in production. The
 * queue "works again" when the stored record carries the real delivery id; the object is
 * restarted so it reads it, as an evicted object would.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RUN_RECORD_TABLE } from "../../src/agent/run-schema.ts";
import type { RunRecord } from "../../src/agent/run-types.ts";
import { startRun } from "../../src/agent/start-run.ts";
import { kvToolsetLookup } from "../../src/toolsets/custom-toolsets.ts";
import { claimRunDelivery, deliveryRunId, setDeliveryRun } from "../../src/webhooks/delivery-runs.ts";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { webhookKeyId } from "../../src/webhooks/webhook-principal.ts";
import { defineWebhook, type WebhookSpec, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { marker, scriptModel } from "../support/model-script.ts";
import { runUntil } from "../support/runs.ts";
import { waitForDelivery } from "../webhooks/support.ts";

const HOOK = "notice-run";
const DAY_MS = 86_400_000;
const HOOK_NOTICE_RETRY_MS = 30_000;
/** Over the 128 KB a Queues message may carry. */
const OVERSIZED_ID = "d".repeat(130 * 1024);

const stubOf = (id: string) => env.RUNS.get(env.RUNS.idFromName(id));
const stored = (id: string) =>
  runInDurableObject(stubOf(id), async (_instance, state) => ({
    record: JSON.parse(state.storage.sql.exec<{ record: string }>(`SELECT record FROM ${RUN_RECORD_TABLE}`).one().record) as RunRecord,
    alarm: await state.storage.getAlarm(),
  }));

function registerHook(): void {
  if (webhookRegistry.get(HOOK) !== undefined) return;
  const Ask = z.object({ ask: z.string() });
  const spec: WebhookSpec<typeof Ask> = {
    name: HOOK,
    description: "test: a run whose end notice is refused",
    verify: "hmac",
    secretEnv: "HOOK_TEST_SECRET",
    toolsets: ["core"],
    payload: Ask,
    run: { prompt: ({ payload }) => payload.ask },
  };
  expect(webhookRegistry.register(defineWebhook(spec))).toEqual({ ok: true });
}

describe("a webhook run's end notice refused by the hooks queue", () => {
  it("is sent by the alarm once the queue takes it, and the delivery records the run's end once", async () => {
    registerHook();
    const script = await scriptModel([{ content: "noticed at last" }]);
    const messages = [{ role: "user" as const, content: `${marker(script)} notice me` }];
    const deliveryId = crypto.randomUUID();
    await insertDelivery(env.DB, {
      id: deliveryId,
      hook: HOOK,
      providerDeliveryId: deliveryId,
      receivedAt: Date.now(),
      calls: [],
      status: "queued",
      callbackPending: false,
      runPlan: { messages, model: undefined, max_turns: undefined, toolsets: undefined, reply: undefined },
    });
    // The delivery as the consumer leaves it once its run started (start-delivery-run.ts).
    expect(await claimRunDelivery(env.DB, deliveryId, Date.now())).toBe(1);
    const runId = deliveryRunId(deliveryId, 1);
    expect(await setDeliveryRun(env.DB, deliveryId, runId, Date.now())).toBe(true);

    const started = await startRun(
      env,
      {
        messages,
        tools: [],
        toolset: undefined,
        model: undefined,
        maxTurns: undefined,
        maxToolCalls: undefined,
        tokenBudget: undefined,
        sessionId: deliveryId,
      },
      { keyId: webhookKeyId(HOOK), origin: undefined, lookup: kvToolsetLookup(env.KV), runId, hook: { name: HOOK, deliveryId: OVERSIZED_ID } },
    );
    expect(started.ok).toBe(true);
    const before = Date.now();
    expect(await runUntil(runId, ["completed", "failed"])).toMatchObject({ status: "completed", answer: "noticed at last" });

    // Refused: nothing marked sent, the alarm set as the retry, and the delivery still waiting.
    const refused = await stored(runId);
    expect(refused.record.hookNotified).toBeUndefined();
    expect(refused.alarm).toBeGreaterThan(before + HOOK_NOTICE_RETRY_MS - 5_000);
    expect(refused.alarm).toBeLessThanOrEqual(Date.now() + HOOK_NOTICE_RETRY_MS);
    const waiting = await env.DB.prepare("SELECT status, run_outcome FROM hook_deliveries WHERE id = ?")
      .bind(deliveryId)
      .first<{ status: string; run_outcome: string | null }>();
    expect(waiting).toEqual({ status: "running", run_outcome: null });

    // The alarm fires while the queue still refuses: still unsent, the retry set again.
    expect(await runDurableObjectAlarm(stubOf(runId))).toBe(true);
    const again = await stored(runId);
    expect(again.record.hookNotified).toBeUndefined();
    expect(again.alarm).toBeGreaterThan(Date.now() + HOOK_NOTICE_RETRY_MS - 5_000);

    // The queue takes it now: the alarm sends the notice, and the delivery finishes.
    await runInDurableObject(stubOf(runId), (_instance, state) => {
      state.storage.sql.exec(`UPDATE ${RUN_RECORD_TABLE} SET record = json_set(record, '$.hook.deliveryId', ?)`, deliveryId);
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stubOf(runId))).toBe(true);
    const notified = await stored(runId);
    expect(notified.record.hookNotified).toBe(true);
    const done = await waitForDelivery(deliveryId, (v) => v.status === "done" || v.status === "failed");
    expect(done.status).toBe("done");

    // Sent once: the alarm now stands for the run's retention, and firing it sends nothing more.
    expect(notified.alarm).toBe(notified.record.updatedAt + 30 * DAY_MS);
    expect(await runDurableObjectAlarm(stubOf(runId))).toBe(true);
    expect((await stored(runId)).alarm).toBe(notified.record.updatedAt + 30 * DAY_MS);
    const outcome = await env.DB.prepare("SELECT run_outcome FROM hook_deliveries WHERE id = ?").bind(deliveryId).first<{ run_outcome: string }>();
    expect(JSON.parse(outcome?.run_outcome ?? "null")).toMatchObject({ id: runId, status: "completed", answer: "noticed at last" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await env.DB.prepare("SELECT outcome FROM hook_events WHERE delivery_id = ? AND outcome IN ('run_finished', 'done') ORDER BY at")
      .bind(deliveryId)
      .all<{ outcome: string }>();
    expect(events.results.map((row) => row.outcome)).toEqual(["run_finished", "done"]);
  }, 20_000);
});
