/**
 * The consumer of `toolgate-hooks` and its dead-letter queue `toolgate-hooks-dlq`.
 *
 * A message names a delivery. The consumer claims it (queued → running, a conditional UPDATE,
 * so of two consumers holding a redelivered message only one runs the calls), runs the calls,
 * stores the results (running → done | awaiting_approval), then POSTs them to the hook's
 * callback URL if it has one. What happens when something fails:
 *
 * - Transient (D1 or the callback receiver failing): `message.retry()` after min(2^attempts, 300)
 *   s. Results computed but not yet stored are kept in this isolate for the retry, which stores
 *   them without running anything again. A run whose results were lost with its isolate is
 *   failed once its claim is older than the batch deadline, never re-run: the calls may have
 *   had effects, and "nothing runs twice" wins over "every delivery finishes".
 * - Poison (a body that is not a delivery message, a delivery that does not exist or cannot be
 *   read): retried at once, so it reaches the dead-letter queue after max_retries without
 *   waiting out the backoff; the reason is kept on the row.
 * - Dead-lettered: the delivery is failed with the last reason, a pending callback is marked
 *   failed, and both are written to `hook_events`.
 *
 * A delivery whose calls wait for approval is stored `awaiting_approval` and calls back nothing
 * yet. Each approval that settles sends an `approval_settled` message (from the Session object);
 * its consumer applies every settled outcome to the stored results (settled-results.ts), moves
 * the delivery to `done` once no call waits (a compare-and-set, so concurrent settlements and
 * redeliveries apply once), and only then sends the callback, once, as for any finished run.
 */
import { retryDelaySeconds } from "../audit/handle-audit-queue.ts";
import type { GatewayParts } from "../compose.ts";
import { loadConfig } from "../config/config.ts";
import {
  claimDelivery,
  CorruptDeliveryError,
  failDelivery,
  finishDelivery,
  getDelivery,
  getDeliveryState,
  noteDeliveryError,
  settleCallback,
  settleDeliveryResults,
  type Delivery,
  type DeliveryDatabase,
} from "./delivery-store.ts";
import { recordWebhookEvent, type WebhookEventOutcome } from "./webhook-events.ts";
import { HOOKS_DLQ_NAME, WebhookMessageSchema, type ApprovalSettledMessage } from "./webhook-message.ts";
import { webhookCallbackUrl, webhookSecret } from "./webhook-principal.ts";
import { webhookRegistry, type WebhookEntry } from "./webhook-registry.ts";
import { runDelivery, runStatus, type DeliveryRun } from "./run-delivery.ts";
import { settledResults } from "./settled-results.ts";
import { sendCallback } from "./send-callback.ts";

/** Options for tests: a database that fails on a schedule, a clock. */
export interface WebhookQueueOptions {
  db?: DeliveryDatabase;
  now?: () => number;
}

/** A message that no retry can fix. */
class PoisonMessage extends Error {
  override readonly name = "PoisonMessage";
}

/** Transient trouble whose message should come back later. */
class RetryLater extends Error {
  override readonly name = "RetryLater";
}

// Results whose D1 write failed, by delivery id, for the retry to store (bounded: memory is
// not durable anyway, and a burst of failures must not grow an isolate without limit).
const unsaved = new Map<string, DeliveryRun>();
const MAX_UNSAVED = 1_000;

/** A hook event; its hook is unknown only for a message that names no delivery. */
const UNKNOWN_HOOK = "(unknown)";

/** Handles one batch from either hook queue; every message is acked or retried. */
export async function handleWebhookQueue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext, parts: GatewayParts, options: WebhookQueueOptions = {}): Promise<void> {
  const db = options.db ?? env.DB;
  const now = options.now ?? Date.now;
  const handle = batch.queue === HOOKS_DLQ_NAME ? deadLetter : work;
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

interface Deps {
  env: Env;
  parts: GatewayParts;
  ctx: ExecutionContext;
  db: DeliveryDatabase;
  now: () => number;
}

const event = (deps: Deps, hook: string, outcome: WebhookEventOutcome, deliveryId: string | null, detail: string | null): void =>
  deps.ctx.waitUntil(recordWebhookEvent(deps.env.DB, { hook, outcome, deliveryId, detail }));

async function work(message: Message<unknown>, deps: Deps): Promise<void> {
  const parsed = WebhookMessageSchema.safeParse(message.body);
  if (!parsed.success) throw new PoisonMessage(`not a hook delivery message: ${JSON.stringify(message.body)?.slice(0, 200)}`);
  if ("kind" in parsed.data) return settle(message, parsed.data, deps);
  const id = parsed.data.deliveryId;
  const { delivery, hook } = await readDelivery(deps, id);

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
      if (await failDelivery(deps.db, id, reason, deps.now())) event(deps, delivery.hook, "failed", id, reason);
      message.ack();
      return;
    }
  }

  const settled = run ?? { status: delivery.status, results: delivery.results ?? [] };
  // A delivery waiting for approval calls back when the last approval settles (settle below).
  if (delivery.callbackStatus === "pending" && settled.status === "done") await callback(deps, delivery, hook, settled);
  message.ack();
}

/** The delivery and its hook; a row that cannot be read, or a hook gone, is poison. */
async function readDelivery(deps: Deps, id: string): Promise<{ delivery: Delivery; hook: WebhookEntry }> {
  let delivery: Delivery | undefined;
  try {
    delivery = await getDelivery(deps.db, id);
  } catch (error) {
    if (!(error instanceof CorruptDeliveryError)) throw error;
    await noteDeliveryError(deps.db, id, error.message, deps.now());
    throw new PoisonMessage(error.message);
  }
  if (delivery === undefined) throw new PoisonMessage(`no delivery ${id} (never stored, or deleted by retention)`);
  const hook = webhookRegistry.get(delivery.hook);
  if (hook === undefined) {
    const reason = `hook '${delivery.hook}' is no longer registered`;
    await noteDeliveryError(deps.db, id, reason, deps.now());
    throw new PoisonMessage(reason);
  }
  return { delivery, hook };
}

/** Compare-and-set rounds before a settle message is retried later (each round re-reads). */
const SETTLE_ROUNDS = 3;

/**
 * An approval of one of the delivery's calls settled. The callback goes out from the message
 * that moved the delivery to done, or from a retry of one (its first callback attempt failed);
 * a message that finds the delivery already done on its first attempt leaves it to that one.
 */
async function settle(message: Message<unknown>, notice: ApprovalSettledMessage, deps: Deps): Promise<void> {
  const id = notice.deliveryId;
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    const { delivery, hook } = await readDelivery(deps, id);
    // The approval settled before the run stored its results: come back once they are stored.
    if (delivery.status === "queued" || delivery.status === "running") throw new RetryLater(`delivery ${id} has not stored its results yet`);
    if (delivery.status !== "awaiting_approval") {
      if (delivery.status === "done" && delivery.callbackStatus === "pending" && message.attempts > 1) await callback(deps, delivery, hook, { status: "done", results: delivery.results ?? [] });
      message.ack();
      return;
    }
    const { results, changed } = await settledResults(deps.env, delivery);
    if (changed.length === 0) {
      // Nothing new to apply: a duplicate, or a call settled by an earlier message.
      message.ack();
      return;
    }
    const status = runStatus(results);
    if (!(await settleDeliveryResults(deps.db, id, delivery.results ?? [], results, status, deps.now()))) continue;
    for (const call of changed) event(deps, delivery.hook, "approval_settled", id, `call ${call.id} (${call.tool}), approval ${call.approval?.id ?? "?"}: ${call.status}${call.error_code === null ? "" : ` ${call.error_code}`}`);
    if (status === "done") {
      const notOk = results.filter((r) => r.status !== "ok").length;
      event(deps, delivery.hook, "done", id, `${results.length} call(s), ${notOk} not ok, after approval`);
      if (delivery.callbackStatus === "pending") await callback(deps, delivery, hook, { status, results });
    }
    message.ack();
    return;
  }
  throw new RetryLater(`delivery ${id}: its results changed under ${SETTLE_ROUNDS} settle attempts in a row`);
}

/**
 * running → done | awaiting_approval; on a D1 failure the results wait in memory for the retry.
 * False when the delivery was no longer running: its results are dropped, and so is its callback.
 */
async function store(deps: Deps, delivery: Delivery, run: DeliveryRun): Promise<boolean> {
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
  event(deps, delivery.hook, run.status, delivery.id, `${run.results.length} call(s), ${failed} not ok`);
  return true;
}

async function callback(deps: Deps, delivery: Delivery, hook: WebhookEntry, run: { status: string; results: DeliveryRun["results"] }): Promise<void> {
  const url = webhookCallbackUrl(deps.env, hook);
  const secret = webhookSecret(deps.env, hook);
  if (url === undefined || secret === undefined) {
    const reason = url === undefined ? "the hook no longer has a callback URL" : `${hook.secretEnv} is not set, so the callback cannot be signed`;
    await settleCallback(deps.db, delivery.id, "failed", reason, deps.now());
    event(deps, delivery.hook, "callback_failed", delivery.id, reason);
    return;
  }
  const attempt = await sendCallback(url, delivery, run, secret, loadConfig(deps.env).outboundAllow);
  switch (attempt.kind) {
    case "delivered":
      await settleCallback(deps.db, delivery.id, "delivered", null, deps.now());
      event(deps, delivery.hook, "callback_delivered", delivery.id, `answered ${attempt.status}`);
      return;
    case "refused":
      await settleCallback(deps.db, delivery.id, "refused", attempt.reason, deps.now());
      event(deps, delivery.hook, "callback_refused", delivery.id, attempt.reason);
      return;
    case "failed":
      await settleCallback(deps.db, delivery.id, "pending", attempt.reason, deps.now());
      throw new RetryLater(attempt.reason);
  }
}

/** The dead-letter consumer: records why the delivery gave up, then acks. */
async function deadLetter(message: Message<unknown>, deps: Deps): Promise<void> {
  const parsed = WebhookMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    const detail = `dead-lettered message is not a hook delivery message: ${JSON.stringify(message.body)?.slice(0, 500)}`;
    console.error(`hooks: ${detail}`);
    event(deps, UNKNOWN_HOOK, "dead_lettered", null, detail);
    message.ack();
    return;
  }
  const id = parsed.data.deliveryId;
  const state = await getDeliveryState(deps.db, id);
  if (state === undefined) {
    event(deps, UNKNOWN_HOOK, "dead_lettered", null, `no delivery ${id} (never stored, or deleted by retention)`);
    message.ack();
    return;
  }
  const gaveUp = (error: string | null): string => `gave up after the queue's last retry: ${error ?? "no error was recorded"}`;
  if (state.status === "queued" || state.status === "running") {
    const reason = gaveUp(state.error);
    if (await failDelivery(deps.db, id, reason, deps.now())) event(deps, state.hook, "dead_lettered", id, reason);
  } else if (state.status === "awaiting_approval") {
    // An approval_settled message gave up. Its approval may have been the delivery's last, and
    // then no other message comes to re-read them: settle once more here (it is idempotent).
    if ("kind" in parsed.data) {
      try {
        await settle(message, parsed.data, deps);
        return;
      } catch (error) {
        event(deps, state.hook, "dead_lettered", id, gaveUp(error instanceof Error ? error.message : String(error)));
      }
    } else {
      event(deps, state.hook, "dead_lettered", id, gaveUp(state.error));
    }
  } else if (state.callbackStatus === "pending") {
    const reason = gaveUp(state.callbackError);
    await settleCallback(deps.db, id, "failed", reason, deps.now());
    event(deps, state.hook, "callback_failed", id, reason);
  }
  message.ack();
}
