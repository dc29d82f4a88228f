/**
 * A webhook call that needs approval waits for it like any other, and the delivery says so:
 * through the Worker with the real queue, Session Durable Objects and D1, a delivery whose call
 * is held is `awaiting_approval`; the decision (approve, deny, expiry) reaches the delivery
 * through an `approval_settled` message, which stores the call's outcome, moves the delivery to
 * `done` once no call waits, and sends the callback then, once.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, registry } from "../../src/registry/registry.ts";
import { getDelivery, insertDelivery, type StoredCallResult, settleDeliveryResults } from "../../src/webhooks/delivery-store.ts";
import { HOOKS_DLQ_NAME } from "../../src/webhooks/webhook-message.ts";
import { defineWebhook, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { decide, type Key } from "../approvals/support.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { readInbox } from "../support/inbox.ts";
import { json } from "../support/json.ts";
import { consume, type DeliveryView, genericHeaders, post, waitForDelivery, webhookEvents } from "./support.ts";

/** Runs of the held tool per key (the Session object runs in this isolate). */
const heldRuns = new Map<string, number>();
let approver: Key;

const Keys = z.object({ keys: z.array(z.string()) });

/** A webhook whose body `{keys}` maps to one call of the risky `hs_write` per key. */
function registerHeldWebhook(name: string, callbackUrl?: string): void {
  const outcome = webhookRegistry.register(
    defineWebhook({
      name,
      description: `test hook ${name}`,
      verify: "hmac",
      secretEnv: "HOOK_TEST_SECRET",
      toolsets: ["hs-set"],
      payload: Keys,
      map: ({ payload }) => payload.keys.map((key, i) => ({ id: `held_${i}`, name: "hs_write", arguments: { key } })),
      ...(callbackUrl === undefined ? {} : { callbackUrl }),
    }),
  );
  expect(outcome).toEqual({ ok: true });
}

beforeAll(async () => {
  const spec = defineTool({
    name: "hs_write",
    toolset: "hs-set",
    risky: true,
    schema: z.object({ key: z.string() }),
    handler: ({ key }) => {
      heldRuns.set(key, (heldRuns.get(key) ?? 0) + 1);
      return { wrote: key };
    },
  });
  expect(registry.register(spec)).toMatchObject({ ok: true });
  approver = await createKey({ name: "hs-approver", role: "approver" });
});

interface Wire extends DeliveryView {
  approvals: { call_id: string; id: string }[];
}

/** Sends a signed delivery of `keys` to `hook` and waits until its calls are held. */
async function held(hook: string, keys: string[]): Promise<Wire> {
  const body = JSON.stringify({ keys });
  const res = await post(hook, body, await genericHeaders(body));
  expect(res.status).toBe(202);
  const { delivery_id } = await json<{ delivery_id: string }>(res);
  const view = (await waitForDelivery(delivery_id, (v) => v.status === "awaiting_approval")) as Wire;
  expect(view.status).toBe("awaiting_approval");
  expect(view.approvals).toHaveLength(keys.length);
  return view;
}

const done = (v: DeliveryView): boolean => v.status === "done";

/** The alarm of the Session object behind a delivery (session id = delivery id), or null. */
function alarmOf(deliveryId: string): Promise<number | null> {
  return runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(deliveryId)), (_instance, state) => state.storage.getAlarm());
}

describe("a webhook delivery whose call needs approval", () => {
  it("is done with the tool's result once a person approves, and the tool ran once", async () => {
    registerHeldWebhook("hs-approve");
    const delivery = await held("hs-approve", ["hs-approve-1"]);
    expect(delivery.results?.[0]).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED" });
    expect(heldRuns.get("hs-approve-1")).toBeUndefined();

    const approval = delivery.approvals[0]?.id ?? "";
    expect((await decide(approver, approval, { decision: "approve", scope: "once" })).status).toBe(200);
    const view = await waitForDelivery(delivery.id, done);
    expect(view.status).toBe("done");
    expect(view.results?.[0]).toMatchObject({ id: "held_0", status: "ok", error_code: null, content: '{"wrote":"hs-approve-1"}' });
    expect(heldRuns.get("hs-approve-1")).toBe(1);
    const outcomes = (await webhookEvents("hs-approve", 4)).map((e) => e.outcome);
    expect(outcomes).toEqual(["accepted", "awaiting_approval", "approval_settled", "done"]);
    // Nothing left to expire or to tell: the Session keeps no alarm (one left at the sent notice's
    // 30 s grace woke it for nothing, and kept this file's drain waiting ~5 s after its last test).
    expect(await alarmOf(delivery.id)).toBeNull();
  });

  it("is done with APPROVAL_DENIED and the approver's reason when a person denies", async () => {
    registerHeldWebhook("hs-deny");
    const delivery = await held("hs-deny", ["hs-deny-1"]);
    const approval = delivery.approvals[0]?.id ?? "";
    expect((await decide(approver, approval, { decision: "deny", reason: "not from this repository" })).status).toBe(200);
    const view = await waitForDelivery(delivery.id, done);
    expect(view.results?.[0]).toMatchObject({ status: "error", error_code: "APPROVAL_DENIED" });
    expect(view.results?.[0]?.content).toContain("not from this repository");
    expect(heldRuns.get("hs-deny-1")).toBeUndefined();
    expect(await alarmOf(delivery.id)).toBeNull();
  });

  it("is done with APPROVAL_EXPIRED when nobody decides in time", async () => {
    registerHeldWebhook("hs-expire");
    const delivery = await held("hs-expire", ["hs-expire-1"]);
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(delivery.id));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE approvals SET expires_at = ? WHERE status = 'pending'", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const view = await waitForDelivery(delivery.id, done);
    expect(view.results?.[0]).toMatchObject({ status: "error", error_code: "APPROVAL_EXPIRED" });
    expect(heldRuns.get("hs-expire-1")).toBeUndefined();
  });

  it("with two held calls, stays awaiting_approval until both settle, also when both settle at once", { timeout: 30_000 }, async () => {
    registerHeldWebhook("hs-two");
    const first = await held("hs-two", ["hs-two-a", "hs-two-b"]);
    const [a, b] = first.approvals.map((x) => x.id);
    expect((await decide(approver, a ?? "", { decision: "approve", scope: "once" })).status).toBe(200);
    const half = await waitForDelivery(first.id, (v) => v.results?.[0]?.status === "ok");
    expect(half.status).toBe("awaiting_approval");
    expect(half.results?.map((r) => r.status)).toEqual(["ok", "pending_approval"]);
    expect((await decide(approver, b ?? "", { decision: "deny", reason: "one is enough" })).status).toBe(200);
    expect((await waitForDelivery(first.id, done)).results?.map((r) => r.error_code)).toEqual([null, "APPROVAL_DENIED"]);

    const second = await held("hs-two", ["hs-two-c", "hs-two-d"]);
    const answers = await Promise.all(second.approvals.map((x) => decide(approver, x.id, { decision: "approve", scope: "once" })));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const view = await waitForDelivery(second.id, done);
    expect(view.results?.map((r) => r.content)).toEqual(['{"wrote":"hs-two-c"}', '{"wrote":"hs-two-d"}']);
    expect([heldRuns.get("hs-two-c"), heldRuns.get("hs-two-d")]).toEqual([1, 1]);
  });

  it("sends the callback once, after the approval settled, with the final results", async () => {
    registerHeldWebhook("hs-callback", "http://upstream.test/inbox/hs-callback");
    const delivery = await held("hs-callback", ["hs-callback-1"]);
    expect(delivery.callback).toMatchObject({ status: "pending", attempts: 0 });
    expect(await readInbox("hs-callback")).toEqual([]);

    const approval = delivery.approvals[0]?.id ?? "";
    expect((await decide(approver, approval, { decision: "approve", scope: "once" })).status).toBe(200);
    const view = await waitForDelivery(delivery.id, (v) => v.callback?.status === "delivered");
    expect(view.callback).toEqual({ status: "delivered", attempts: 1, error: null });
    const received = await readInbox("hs-callback");
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.body ?? "{}")).toMatchObject({
      delivery_id: delivery.id,
      status: "done",
      results: [{ status: "ok", content: '{"wrote":"hs-callback-1"}' }],
    });

    // A redelivered settle message, first attempt or retry, applies nothing again and calls back no more.
    const before = await webhookEvents("hs-callback", 5);
    for (const attempts of [1, 2]) expect(await consume({ kind: "approval_settled", deliveryId: delivery.id, approvalId: approval }, { attempts })).toBe("ack");
    expect(await readInbox("hs-callback")).toHaveLength(1);
    expect(await waitForDelivery(delivery.id, () => true)).toMatchObject({ status: "done", results: view.results, callback: view.callback });
    expect(await webhookEvents("hs-callback", before.length)).toEqual(before);
  });

  it("retries a callback that failed after the settle, through the real queue, until it is delivered", { timeout: 30_000 }, async () => {
    registerHeldWebhook("hs-callback-retry", "http://upstream.test/hook-callback/flaky");
    const delivery = await held("hs-callback-retry", ["hs-callback-retry-1"]);
    const approval = delivery.approvals[0]?.id ?? "";
    expect((await decide(approver, approval, { decision: "approve", scope: "once" })).status).toBe(200);
    const view = await waitForDelivery(delivery.id, (v) => v.callback?.status === "delivered", 25_000);
    expect(view).toMatchObject({ status: "done", callback: { status: "delivered", attempts: 2, error: null } });
    expect(heldRuns.get("hs-callback-retry-1")).toBe(1);
  });

  it("settles from the dead-letter queue when the last settle message gave up, so the delivery does not wait forever", async () => {
    registerHeldWebhook("hs-dlq");
    const delivery = await held("hs-dlq", ["hs-dlq-1"]);
    const approval = delivery.approvals[0]?.id ?? "";
    expect((await decide(approver, approval, { decision: "approve", scope: "once" })).status).toBe(200);
    await waitForDelivery(delivery.id, done);
    // As if that settle message had failed every retry: the delivery still shows the call pending.
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'awaiting_approval', results = ? WHERE id = ?")
      .bind(JSON.stringify(delivery.results), delivery.id)
      .run();
    expect(await consume({ kind: "approval_settled", deliveryId: delivery.id, approvalId: approval }, { queue: HOOKS_DLQ_NAME, attempts: 9 })).toBe("ack");
    expect(await waitForDelivery(delivery.id, () => true)).toMatchObject({ status: "done", results: [{ status: "ok", content: '{"wrote":"hs-dlq-1"}' }] });
    expect(heldRuns.get("hs-dlq-1")).toBe(1);
  });

  it("ignores a settle message for a call still waiting, and retries one that arrives before the run stored its results", async () => {
    registerHeldWebhook("hs-early");
    const delivery = await held("hs-early", ["hs-early-1"]);
    const approval = delivery.approvals[0]?.id ?? "";
    expect(await consume({ kind: "approval_settled", deliveryId: delivery.id, approvalId: approval })).toBe("ack");
    expect(await waitForDelivery(delivery.id, () => true)).toMatchObject({ status: "awaiting_approval", results: delivery.results });

    await env.DB.prepare("UPDATE hook_deliveries SET status = 'running' WHERE id = ?").bind(delivery.id).run();
    expect(await consume({ kind: "approval_settled", deliveryId: delivery.id, approvalId: approval })).toEqual({ retryAfter: 2 });
  });
});

describe("the delivery view", () => {
  it("still names the approval that decided a settled call", async () => {
    registerHeldWebhook("hs-view");
    const delivery = await held("hs-view", ["hs-view-1"]);
    const approval = delivery.approvals[0]?.id ?? "";
    await decide(approver, approval, { decision: "deny", reason: "no" });
    await waitForDelivery(delivery.id, done);
    const wire = await json<Wire>(await api(`/v1/hooks/deliveries/${delivery.id}`));
    expect(wire.approvals.map((x) => x.id)).toEqual([approval]);
  });
});

describe("storing settled results", () => {
  it("is a compare-and-set: a consumer that read the results before another's write changes nothing", async () => {
    const id = crypto.randomUUID();
    await insertDelivery(env.DB, { id, hook: "hs-cas", providerDeliveryId: id, receivedAt: Date.now(), calls: [], status: "queued", callbackPending: false });
    const call: StoredCallResult = {
      id: "c1",
      tool: "hs_write",
      status: "pending_approval",
      error_code: "APPROVAL_REQUIRED",
      content: "{}",
      duration_ms: 1,
      attempts: 0,
    };
    const pending = [call];
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'awaiting_approval', results = ? WHERE id = ?").bind(JSON.stringify(pending), id).run();
    const first = [{ ...call, status: "ok", error_code: null, content: "first" }];
    const second = [{ ...call, status: "ok", error_code: null, content: "second" }];

    expect(await settleDeliveryResults(env.DB, id, pending, first, "done", Date.now())).toBe(true);
    expect(await settleDeliveryResults(env.DB, id, pending, second, "done", Date.now())).toBe(false);
    expect(await getDelivery(env.DB, id)).toMatchObject({ status: "done", results: first });
  });
});
