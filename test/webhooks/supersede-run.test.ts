/**
 * Re-running a run webhook's delivery while the run of its earlier attempt still goes on: the
 * re-run cancels that run as superseded and denies the approval it waits on, before the new run
 * starts, so one event never acts twice. The delivery gets failed the ways it does in production
 * (its start message dead-lettered; a start whose run id never reached D1), against the Worker's
 * own routes, queue consumer, Run and Session objects, with the scripted model.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HOOKS_DLQ_NAME } from "../../src/webhooks/webhook-message.ts";
import { defineWebhook, type WebhookSpec, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil } from "../support/runs.ts";
import { consume, type DeliveryView, genericHeaders, post, waitForDelivery } from "./support.ts";

const HOOK = "supersede-run";
const Ask = z.object({ ask: z.string() });

interface RunDeliveryView extends DeliveryView {
  run: { id: string; status: string; answer: string | null } | null;
  events: { outcome: string; detail: string | null }[];
}

function registerHook(): void {
  if (webhookRegistry.get(HOOK) !== undefined) return;
  // maintenance: delete_result needs a person's approval, so the run can be caught waiting.
  const spec: WebhookSpec<typeof Ask> = {
    name: HOOK,
    description: "test: a run a re-run supersedes",
    verify: "hmac",
    secretEnv: "HOOK_TEST_SECRET",
    toolsets: ["maintenance"],
    payload: Ask,
    run: { prompt: ({ payload }) => payload.ask },
  };
  expect(webhookRegistry.register(defineWebhook(spec))).toEqual({ ok: true });
}

async function deliver(ask: string): Promise<string> {
  const text = JSON.stringify({ ask });
  const response = await post(HOOK, text, await genericHeaders(text, { delivery: crypto.randomUUID() }));
  expect(response.status).toBe(202);
  return (await json<{ delivery_id: string }>(response)).delivery_id;
}

const view = async (id: string) => json<RunDeliveryView>(await api(`/v1/hooks/deliveries/${id}`));
const finished = (v: DeliveryView) => v.status === "done" || v.status === "failed";
const deleteCall = (id: string) => ({ id, name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) });

describe("re-running a run webhook's delivery whose earlier run goes on", () => {
  it("cancels the run waiting on approval and denies its approval before the new run starts", async () => {
    registerHook();
    const script = await scriptModel([{ tool_calls: [deleteCall("sup_1")] }, { content: "deleted" }]);
    const id = await deliver(`${marker(script)} delete it`);
    const first = `${id}-r1`;
    await waitForDelivery(id, (v) => (v as RunDeliveryView).run !== null);
    const waiting = await runUntil(first, ["awaiting_approval", "completed", "failed"]);
    expect(waiting.status).toBe("awaiting_approval");
    const approval = waiting.pending_approvals[0]?.approval_id ?? "";

    // The start message used up its retries: the dead-letter consumer fails the delivery, while its run waits on.
    expect(await consume({ deliveryId: id }, { queue: HOOKS_DLQ_NAME })).toBe("ack");
    expect((await view(id)).status).toBe("failed");
    expect((await getRun(first)).status).toBe("awaiting_approval");

    expect((await sentToModel(script)).requests).toHaveLength(1);
    await scriptModel([{ content: "nothing deleted this time" }], script);
    const rerun = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" });
    expect(rerun.status).toBe(202);
    const requeued = (await json<RunDeliveryView>(rerun)).events.find((event) => event.outcome === "requeued");
    expect(requeued?.detail).toContain(`run ${first} of the earlier attempt cancelled, 1 approval(s) denied`);

    const superseded = await getRun(first);
    expect(superseded).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    expect(superseded.error?.message).toContain(`Superseded: delivery ${id} was re-run`);
    // Nobody can approve the superseded call any more: it was denied, with the same reason.
    const denied = await json<{ status: string; reason?: string }>(await api(`/v1/approvals/${approval}?session_id=${id}`));
    expect(denied.status).toBe("denied");
    expect(denied.reason).toContain("Superseded");
    const late = await api(`/v1/approvals/${approval}?session_id=${id}`, { body: { decision: "approve", scope: "once" } });
    expect(late.status).toBe(409);

    const done = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(done).toMatchObject({ status: "done", run: { id: `${id}-r2`, status: "completed", answer: "nothing deleted this time" } });
    // Since the re-script (which starts its request log afresh) only the new run asked, once:
    // the superseded run, which would ask with its turn in the transcript, never did again.
    expect((await sentToModel(script)).requests.map((request) => request.messages.filter((m) => m.role === "assistant").length)).toEqual([0]);
    expect((await getRun(first)).status).toBe("cancelled");
  }, 15_000);

  it("cancels a run still in its model turn whose id never reached the delivery row", async () => {
    registerHook();
    const script = await scriptModel([{ content: "too late to matter", delay_ms: 1_500 }]);
    const id = await deliver(`${marker(script)} slow`);
    const first = `${id}-r1`;
    await waitForDelivery(id, (v) => (v as RunDeliveryView).run !== null);
    // What a start whose run-id write failed leaves once its message is dead-lettered: failed, no run id.
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'failed', run_id = NULL, error = 'test: the run id was never stored' WHERE id = ?")
      .bind(id)
      .run();
    expect((await getRun(first)).status).toBe("running");

    await scriptModel([{ content: "the re-run's answer" }], script);
    expect((await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" })).status).toBe(202);
    expect(await getRun(first)).toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });

    const done = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(done).toMatchObject({ status: "done", run: { id: `${id}-r2`, status: "completed", answer: "the re-run's answer" } });
    // The earlier run's model call, answering after the cancel, ends nothing and starts no turn.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect(await getRun(first)).toMatchObject({ status: "cancelled", turns: 0, answer: null });
  }, 15_000);

  it("leaves an earlier run that had already ended as it ended, and the re-run still runs", async () => {
    registerHook();
    const script = await scriptModel([{ content: "first try" }]);
    const id = await deliver(`${marker(script)} quick`);
    const done = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(done.status).toBe("done");
    // A finished run is not cancelled: failed afterwards (as an interrupted reply is), the re-run leaves it as it ended.
    await env.DB.prepare("UPDATE hook_deliveries SET status = 'failed' WHERE id = ?").bind(id).run();
    await scriptModel([{ content: "second try" }], script);
    const rerun = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" });
    expect(rerun.status).toBe(202);
    expect((await json<RunDeliveryView>(rerun)).events.find((event) => event.outcome === "requeued")?.detail).not.toContain("cancelled");
    expect((await getRun(`${id}-r1`)).status).toBe("completed");
    expect(await waitForDelivery(id, finished)).toMatchObject({ status: "done", run: { id: `${id}-r2`, answer: "second try" } });
  }, 15_000);
});
