/**
 * The consumer of `toolgate-hooks` and its dead-letter queue `toolgate-hooks-dlq`.
 *
 * A message names a delivery. The consumer claims it (queued → running, a conditional UPDATE,
 * so of two consumers holding a redelivered message only one runs the calls), runs the calls,
 * stores the results (running → done | awaiting_approval), then POSTs them to the webhook's
 * callback URL if it has one (post-callback.ts). What happens when something fails:
 *
 * - Transient (D1 or the callback receiver failing): `message.retry()` after min(2^attempts, 300)
 *   s. Results computed but not yet stored are kept in this isolate for the retry, which stores
 *   them without running anything again. A run whose results were lost with its isolate is
 *   failed once its claim is older than the batch deadline, never re-run: the calls may have
 *   had effects, and "nothing runs twice" wins over "every delivery finishes".
 * - Poison (a body that is not a delivery message, a delivery that does not exist or cannot be
 *   read): retried at once, so it reaches the dead-letter queue after max_retries without
 *   waiting out the backoff; the reason is kept on the row.
 * - Dead-lettered: dead-letter-delivery.ts.
 *
 * A run webhook's delivery starts an agent run instead (start-delivery-run.ts) and stays
 * `running` until its Run object reports the end in a `run_finished` message
 * (finish-delivery-run.ts). A delivery whose calls wait for approval is stored `awaiting_approval` and calls back nothing
 * yet. Each approval that settles sends an `approval_settled` message (from the Session object),
 * which settle-approval.ts applies.
 */
import { retryDelaySeconds } from "../audit/handle-audit-queue.ts";
import type { GatewayParts } from "../compose.ts";
import { loadConfig } from "../config/config.ts";
import { deadLetterDelivery } from "./dead-letter-delivery.ts";
import { claimDelivery, type Delivery, type DeliveryDatabase, failDelivery, finishDelivery, noteDeliveryError } from "./delivery-store.ts";
import { finishDeliveryRun } from "./finish-delivery-run.ts";
import { postCallback } from "./post-callback.ts";
import { type DeliveryRun, runDelivery } from "./run-delivery.ts";
import { settleApproval } from "./settle-approval.ts";
import { startDeliveryRun } from "./start-delivery-run.ts";
import { HOOKS_DLQ_NAME, WebhookMessageSchema } from "./webhook-message.ts";
import { PoisonMessage, queueEvent, RetryLater, readDelivery, type WebhookQueueDeps } from "./webhook-queue-deps.ts";

/** Options for tests: a database that fails on a schedule, a clock. */
export interface WebhookQueueOptions {
  db?: DeliveryDatabase;
  now?: () => number;
}

// Results whose D1 write failed, by delivery id, for the retry to store (bounded: memory is
// not durable anyway, and a burst of failures must not grow an isolate without limit).
const unsaved = new Map<string, DeliveryRun>();
const MAX_UNSAVED = 1_000;

/** Handles one batch from either webhook queue; every message is acked or retried. */
export async function handleWebhookQueue(
  batch: MessageBatch<unknown>,
  env: Env,
  ctx: ExecutionContext,
  parts: GatewayParts,
  options: WebhookQueueOptions = {},
): Promise<void> {
  const db = options.db ?? env.DB;
  const now = options.now ?? Date.now;
  const handle = batch.queue === HOOKS_DLQ_NAME ? deadLetterDelivery : work;
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await handle(message, { env, parts, ctx, db, now });
      } catch (error) {
        if (!(error instanceof PoisonMessage)) await noteLastError(db, message.body, String(error), now());
        if (error instanceof PoisonMessage) {
          console.error(`hooks: message ${message.id} cannot be processed (attempt ${message.attempts}): ${error.message}`);
          message.retry();
          return;
        }
        console.warn(`hooks: message ${message.id} on ${batch.queue} failed (attempt ${message.attempts}), retrying: ${String(error)}`);
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts, batch.queue) });
      }
    }),
  );
}

/** Keeps a transient failure's reason on the row, for the dead-letter consumer to report. */
async function noteLastError(db: DeliveryDatabase, body: unknown, error: string, now: number): Promise<void> {
  const parsed = WebhookMessageSchema.safeParse(body);
  if (!parsed.success) return;
  try {
    await noteDeliveryError(db, parsed.data.deliveryId, error, now);
  } catch {
    // D1 is likely what failed; the retry matters more than the note.
  }
}

async function work(message: Message<unknown>, deps: WebhookQueueDeps): Promise<void> {
  const parsed = WebhookMessageSchema.safeParse(message.body);
  if (!parsed.success) throw new PoisonMessage(`not a hook delivery message: ${JSON.stringify(message.body)?.slice(0, 200)}`);
  if ("kind" in parsed.data)
    return parsed.data.kind === "approval_settled" ? settleApproval(message, parsed.data, deps) : finishDeliveryRun(message, parsed.data, deps);
  const id = parsed.data.deliveryId;
  const { delivery, hook } = await readDelivery(deps, id);
  if (hook.run !== undefined) return startDeliveryRun(message, delivery, hook, deps);

  let run: DeliveryRun | undefined;
  if (delivery.status === "queued") {
    if (!(await claimDelivery(deps.db, id, deps.now()))) throw new RetryLater(`delivery ${id} was claimed by another consumer`);
    run = await runDelivery(delivery, hook, deps.env, (promise) => deps.ctx.waitUntil(promise), deps.parts);
    if (!(await store(deps, delivery, run))) return message.ack();
  } else if (delivery.status === "running") {
    run = unsaved.get(id);
    if (run !== undefined) {
      if (!(await store(deps, delivery, run))) return message.ack();
    } else {
      const staleAfter = loadConfig(deps.env).batchTimeoutMs + 60_000;
      if (deps.now() - (delivery.claimedAt ?? 0) <= staleAfter) throw new RetryLater(`delivery ${id} is running elsewhere`);
      const reason = "the run was interrupted after its calls started and its results were lost; the calls are not run again, so none runs twice";
      if (await failDelivery(deps.db, id, reason, deps.now())) queueEvent(deps, delivery.hook, "failed", id, reason);
      message.ack();
      return;
    }
  }

  const settled = run ?? { status: delivery.status, results: delivery.results ?? [] };
  // A delivery waiting for approval calls back when the last approval settles (settle-approval.ts).
  if (delivery.callbackStatus === "pending" && settled.status === "done") await postCallback(deps, delivery, hook, settled);
  message.ack();
}

/**
 * running → done | awaiting_approval; on a D1 failure the results wait in memory for the retry.
 * False when the delivery was no longer running: its results are dropped, and so is its callback.
 */
async function store(deps: WebhookQueueDeps, delivery: Delivery, run: DeliveryRun): Promise<boolean> {
  unsaved.set(delivery.id, run);
  if (unsaved.size > MAX_UNSAVED) unsaved.delete(unsaved.keys().next().value ?? "");
  const finished = await finishDelivery(deps.db, delivery.id, run.status, run.results, deps.now());
  unsaved.delete(delivery.id);
  if (!finished) {
    // Failed meanwhile as interrupted (its claim went stale while this run was still going).
    console.warn(`hooks: delivery ${delivery.id} was no longer running when its results arrived; they are dropped`);
    return false;
  }
  const failed = run.results.filter((r) => r.status !== "ok").length;
  queueEvent(deps, delivery.hook, run.status, delivery.id, `${run.results.length} call(s), ${failed} not ok`);
  return true;
}
