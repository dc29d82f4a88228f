/**
 * The `run_finished` message: the run a delivery started has ended, and its Run object said so
 * (no polling). The outcome is read from that object (the truth), recorded on the delivery once
 * (a compare-and-set, so a duplicated message does nothing), then the reply call, if the webhook
 * makes one and the run completed with an answer, runs through `runDelivery` (the webhook's
 * principal, pipeline, policy, approvals and audit, as for any of its calls), and the callback
 * gets the run's id, status and answer with the reply's result.
 */
import type { RunSnapshot } from "../agent/run-object.ts";
import { runStub } from "../agent/run-stub.ts";
import { isTerminal } from "../agent/run-types.ts";
import { loadConfig } from "../config/config.ts";
import { claimRunOutcome } from "./delivery-runs.ts";
import { type Delivery, failDelivery, finishDelivery, type RunOutcome, type StoredCall } from "./delivery-store.ts";
import { postCallback } from "./post-callback.ts";
import { type DeliveryRun, runDelivery } from "./run-delivery.ts";
import type { RunFinishedMessage } from "./webhook-message.ts";
import { PoisonMessage, queueEvent, RetryLater, readDelivery, type WebhookQueueDeps } from "./webhook-queue-deps.ts";
import { payloadText } from "./webhook-registry.ts";

/** An answer longer than this is cut before it fills the reply call (GitHub takes 65,536 characters). */
export const REPLY_ANSWER_MAX_CHARS = 60_000;

/** Completes a delivery whose run ended; acks the message unless it must come back. */
export async function finishDeliveryRun(message: Message<unknown>, notice: RunFinishedMessage, deps: WebhookQueueDeps): Promise<void> {
  const { delivery, hook } = await readDelivery(deps, notice.deliveryId);
  if (delivery.status === "running" && (delivery.runId ?? null) === null) throw new RetryLater(`delivery ${delivery.id} has not stored its run's id yet`);
  if (delivery.status !== "running" || delivery.runId !== notice.runId) {
    // Finished already (a duplicate, or a retry whose first callback attempt failed), or the run of an earlier attempt.
    if (delivery.status === "done" && delivery.runId === notice.runId && delivery.callbackStatus === "pending" && message.attempts > 1) {
      await postCallback(deps, delivery, hook, { status: "done", results: delivery.results ?? [] });
    }
    message.ack();
    return;
  }
  if ((delivery.runOutcome ?? null) !== null) return interrupted(message, delivery, deps);

  // The RPC types of a transcript (OpenAI's message unions) are too deep for Rpc.Serializable.
  const snapshot = (await runStub(deps.env, notice.runId).snapshot()) as RunSnapshot | undefined;
  if (snapshot === undefined) throw new PoisonMessage(`run ${notice.runId} of delivery ${delivery.id} does not exist`);
  const { record } = snapshot;
  if (!isTerminal(record.status)) {
    // Only the run's end sends this message; the run sends it again when it does end.
    message.ack();
    return;
  }
  const outcome: RunOutcome = { id: record.id, status: record.status, answer: record.answer, error: record.error };
  if (!(await claimRunOutcome(deps.db, delivery.id, outcome, deps.now()))) {
    message.ack();
    return;
  }
  queueEvent(
    deps,
    delivery.hook,
    "run_finished",
    delivery.id,
    `run ${record.id} ${record.status}${record.error === null ? "" : ` ${record.error.code}`} (/v1/runs/${record.id})`,
  );

  const reply = replyCall(delivery, outcome);
  const run: DeliveryRun =
    reply === undefined
      ? { status: "done", results: [] }
      : await runDelivery({ ...delivery, calls: [reply] }, hook, deps.env, (promise) => deps.ctx.waitUntil(promise), deps.parts);
  if (!(await finishDelivery(deps.db, delivery.id, run.status, run.results, deps.now()))) {
    message.ack();
    return;
  }
  const notOk = run.results.filter((r) => r.status !== "ok").length;
  queueEvent(
    deps,
    delivery.hook,
    run.status,
    delivery.id,
    reply === undefined ? `run ${record.status}, no reply call` : `run ${record.status}, reply ${reply.name}: ${notOk === 0 ? "ok" : "not ok"}`,
  );
  // A reply waiting for approval calls back when it settles (settle-approval.ts).
  if (delivery.callbackStatus === "pending" && run.status === "done") await postCallback(deps, { ...delivery, runOutcome: outcome }, hook, run);
  message.ack();
}

/** The reply call filled with the answer: only for a completed run that answered something. */
function replyCall(delivery: Delivery, outcome: RunOutcome): StoredCall | undefined {
  const reply = delivery.runPlan?.reply;
  if (reply === undefined || outcome.status !== "completed" || outcome.answer === null || outcome.answer.trim() === "") return undefined;
  return { id: "reply", name: reply.name, arguments: { ...reply.arguments, [reply.answer_argument]: payloadText(outcome.answer, REPLY_ANSWER_MAX_CHARS) } };
}

/**
 * The outcome was recorded but the delivery is still running: the consumer that recorded it died
 * around the reply call. The reply is never made again (it may have been posted); once the claim
 * is older than a batch could take, the delivery fails saying so.
 */
async function interrupted(message: Message<unknown>, delivery: Delivery, deps: WebhookQueueDeps): Promise<void> {
  const staleAfter = loadConfig(deps.env).batchTimeoutMs + 60_000;
  if (deps.now() - delivery.updatedAt <= staleAfter) throw new RetryLater(`delivery ${delivery.id} is finishing elsewhere`);
  const reason = "the reply call was interrupted after the run ended and its result was lost; it is not made again, so it is never made twice";
  if (await failDelivery(deps.db, delivery.id, reason, deps.now())) queueEvent(deps, delivery.hook, "failed", delivery.id, reason);
  message.ack();
}
