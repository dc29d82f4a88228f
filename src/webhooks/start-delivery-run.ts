/**
 * The consumer's step for a run webhook's delivery: claim it and start its agent run, the same
 * run `POST /v1/runs` starts (startRun: the model, the limits, a Run object), as principal
 * `hook:<name>` with the webhook's toolsets, session id = delivery id. The delivery then stays
 * `running` with the run's id until the Run object reports the end (finish-delivery-run.ts).
 *
 * A run that cannot start (no model configured, an unknown model) fails the delivery with the
 * error code first in its error; nothing is lost, since `POST /v1/hooks/deliveries/{id}/rerun`
 * queues it again with its stored plan once the configuration is fixed.
 */
import { runSettings } from "../agent/run-settings.ts";
import type { Message as ChatMessage } from "../agent/run-types.ts";
import { startRun } from "../agent/start-run.ts";
import { describeRequestFailure } from "../http/request-failure.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import { claimRunDelivery, deliveryRunId, setDeliveryRun } from "./delivery-runs.ts";
import { type Delivery, failDelivery } from "./delivery-store.ts";
import { webhookKeyId } from "./webhook-principal.ts";
import { queueEvent, RetryLater, type WebhookQueueDeps } from "./webhook-queue-deps.ts";
import type { WebhookEntry } from "./webhook-registry.ts";

/** Starts the delivery's run once; acks the message unless it must come back. */
export async function startDeliveryRun(message: Message<unknown>, delivery: Delivery, hook: WebhookEntry, deps: WebhookQueueDeps): Promise<void> {
  const plan = delivery.runPlan ?? null;
  let attempt: number;
  if (delivery.status === "queued") {
    const claimed = await claimRunDelivery(deps.db, delivery.id, deps.now());
    if (claimed === undefined) throw new RetryLater(`delivery ${delivery.id} was claimed by another consumer`);
    attempt = claimed;
  } else if (delivery.status === "running" && (delivery.runId ?? null) === null) {
    // Claimed by a consumer that died before it kept the run's id: the same attempt's id reaches
    // the same Run object, whose start returns the run already started, if it was.
    attempt = delivery.attempts;
  } else {
    // Its run is going (it reports its end) or the delivery has finished: nothing to do.
    message.ack();
    return;
  }
  if (plan === null) {
    const reason = "the delivery has no stored run plan (accepted before its webhook declared a run?)";
    if (await failDelivery(deps.db, delivery.id, reason, deps.now())) queueEvent(deps, delivery.hook, "failed", delivery.id, reason);
    message.ack();
    return;
  }

  const runId = deliveryRunId(delivery.id, attempt);
  const ceiling = runSettings(deps.env).maxTurns;
  const started = await startRun(
    deps.env,
    {
      messages: plan.messages as ChatMessage[],
      tools: [],
      toolset: undefined,
      ...(plan.toolsets === undefined ? {} : { toolsets: plan.toolsets }),
      model: plan.model,
      maxTurns: plan.max_turns === undefined ? undefined : Math.min(plan.max_turns, ceiling),
      maxToolCalls: undefined,
      tokenBudget: undefined,
      sessionId: delivery.id,
    },
    { keyId: webhookKeyId(hook.name), origin: undefined, lookup: kvToolsetLookup(deps.env.KV), runId, hook: { name: hook.name, deliveryId: delivery.id } },
  );
  if (!started.ok) {
    const { body } = describeRequestFailure(started.failure);
    const issues = (body.issues ?? []).map((i) => ` ${i.path}: ${i.message}.`).join("");
    const reason = `${body.error_code}: ${body.error}${issues} Fix the configuration, then re-run the delivery (POST /v1/hooks/deliveries/${delivery.id}/rerun).`;
    if (await failDelivery(deps.db, delivery.id, reason, deps.now())) queueEvent(deps, delivery.hook, "failed", delivery.id, reason);
    message.ack();
    return;
  }
  await setDeliveryRun(deps.db, delivery.id, runId, deps.now());
  queueEvent(deps, delivery.hook, "run_started", delivery.id, `run ${runId} (/v1/runs/${runId})`);
  message.ack();
}
