/**
 * What the Worker under test is still doing on its own: its handlers' `waitUntil` work, queue
 * batches in its consumer, messages the consumer asked to retry, and Durable Object alarms
 * running. The test runner is the Worker under test (one isolate, one module graph), so the
 * ledger wraps the main module's handlers and its Durable Object classes' `alarm` methods in
 * place, once per isolate; test/support/drain-background-work.ts reads it when a file ends.
 *
 * Neither the queue broker nor workerd says which messages wait for a retry or which alarm is
 * running (`getAlarm()` is null while an alarm runs), hence a ledger rather than a query.
 *
 * Audit records are watched on their way to the queue too, whatever context sends them: a group
 * (audit-group-commit.ts) waits up to 200 ms on its opener's timer, and an opener without a
 * tracked `waitUntil` (a test's `app.request()` without an execution context, a Durable Object)
 * left the records invisible until the queue's batch wrote them, after the drain had returned:
 * into the next file's fresh D1, at the real time, where test/audit/retention.test.ts, whose
 * clock is in 2031, counted one as expired (4 deleted where it wrote 3).
 */
import { env } from "cloudflare:workers";
import { AuditBuffer } from "../../src/audit/audit-buffer.ts";
import * as main from "../../src/index.ts";

/** One consumer of wrangler.toml's [[queues.consumers]], as vitest.config.ts hands it in. */
export interface QueueConsumerSettings {
  queue: string;
  max_retries?: number;
  dead_letter_queue?: string;
  retry_delay?: number;
}

/** What the ledger needs from wrangler.toml, as vitest.config.ts hands it in (TEST_BACKGROUND). */
export interface LedgerSettings {
  consumers: readonly QueueConsumerSettings[];
  /** Queue producer bindings by queue name. */
  producers: Record<string, string>;
}

/** A message the consumer asked to retry: it comes back on `on` (its queue or the dead-letter queue) at `dueAt`. */
interface Retry {
  id: string;
  from: string;
  on: string;
  dueAt: number;
}

// workerd's default when a consumer sets no max_retries.
const DEFAULT_MAX_RETRIES = 3;
const INSTALLED = Symbol.for("toolgate.test.backgroundLedger");

const waitUntils = new Map<Promise<void>, string>();
const auditSends = new Map<Promise<void>, string>();
/** Audit buffers holding records not yet flushed, such as a group waiting on its opener's timer. */
const unsentBuffers = new Set<AuditBuffer>();
/** Messages producers sent that the consumer has not yet been handed once (see `trackQueueSends`). */
let unconsumed = 0;
const batches = new Map<object, string>();
const alarms = new Set<RunningAlarm>();
const retries = new Map<string, Retry>();

/** An alarm handler that has started and not returned. */
export interface RunningAlarm {
  /** The exported class, e.g. `Run`. */
  className: string;
  id: DurableObjectId;
  /** The object running it: an instance that abortAllDurableObjects() dropped never returns, and a new one takes its place. */
  instance: object;
}

/** Descriptions of the work the ledger knows is pending now, empty when there is none. */
export function pendingInLedger(now = Date.now()): string[] {
  return [
    ...[...waitUntils.values()].map((what) => `a waitUntil of ${what} has not settled`),
    ...[...unsentBuffers].map((buffer) => `${buffer.size} audit record(s) wait in a buffer or group (audit-group-commit.ts) to be sent`),
    ...auditSends.values(),
    ...(unconsumed > 0 ? [`${unconsumed} message(s) sent to a queue have not reached its consumer yet`] : []),
    ...[...batches.values()].map((what) => `the queue consumer is still handling ${what}`),
    ...[...retries.values()].map(
      (retry) =>
        `message ${retry.id} of ${retry.from} waits for ${retry.on === retry.from ? "a retry" : `the dead-letter queue ${retry.on}`} (due in ${Math.max(0, retry.dueAt - now)} ms)`,
    ),
  ];
}

/** Alarm handlers that have started and not returned; see `RunningAlarm.instance`. */
export function runningAlarms(): RunningAlarm[] {
  return [...alarms];
}

/** Drops an alarm whose instance is gone: its handler will never return. */
export function forgetAlarm(alarm: RunningAlarm): void {
  alarms.delete(alarm);
}

/**
 * Forgets everything: called after reset(), which drops every Durable Object instance, so work a
 * previous file left (and failed for) is not counted against the next one.
 */
export function forgetBackgroundWork(): void {
  waitUntils.clear();
  auditSends.clear();
  unsentBuffers.clear();
  unconsumed = 0;
  batches.clear();
  alarms.clear();
  retries.clear();
}

/**
 * Wraps the main module's `fetch`, `queue` and `scheduled` handlers and every exported class's
 * `alarm`, so the ledger sees their work. Idempotent: setup files run once per test file, and
 * with `isolate: false` the module graph, and so the wrapped handlers, outlive the file.
 */
export function installBackgroundLedger({ consumers, producers }: LedgerSettings): void {
  const handlers: ExportedHandler<Env> = main.default;
  if (Reflect.get(handlers, INSTALLED) === true) return;
  Reflect.set(handlers, INSTALLED, true);
  const { fetch, queue, scheduled } = handlers;
  if (fetch !== undefined) {
    handlers.fetch = function trackedFetch(request, env, ctx) {
      const url = new URL(request.url);
      return fetch(request, env, trackWaitUntil(ctx, `${request.method} ${url.pathname}`));
    };
  }
  if (queue !== undefined) {
    const settings = new Map(consumers.map((consumer) => [consumer.queue, consumer]));
    handlers.queue = async function trackedQueue(batch, env, ctx) {
      const token = {};
      batches.set(token, `a batch of ${batch.messages.length} message(s) from ${batch.queue}`);
      for (const message of batch.messages) {
        // A first delivery, not a retry or a dead-letter arrival (those are in `retries`).
        if (!retries.delete(message.id) && message.attempts === 1) unconsumed = Math.max(0, unconsumed - 1);
      }
      const watched = watchOutcome(batch);
      let threw = false;
      try {
        await queue(watched.batch, env, trackWaitUntil(ctx, `the ${batch.queue} consumer`));
      } catch (error) {
        threw = true;
        throw error;
      } finally {
        watched.record(threw, settings.get(batch.queue));
        batches.delete(token);
      }
    };
  }
  if (scheduled !== undefined) {
    handlers.scheduled = function trackedScheduled(controller, env, ctx) {
      return scheduled(controller, env, trackWaitUntil(ctx, `the cron ${controller.cron}`));
    };
  }
  for (const [name, value] of Object.entries(main)) if (typeof value === "function") trackAlarm(name, value);
  trackAuditSends();
  trackQueueSends(Reflect.get(env, Object.values(producers)[0] ?? ""));
}

/**
 * Counts messages from the producer's `send`/`sendBatch` until the consumer is first handed them.
 * The broker's backlog does not cover that whole way: it holds a delayed message back unlisted,
 * and takes a batch off the list before handing it to the consumer, so a batch whose delivery
 * took longer than the drain's quiet period under CPU contention was in neither place. Patched on
 * the binding's prototype, which every producer binding in this isolate shares.
 */
function trackQueueSends(producer: unknown): void {
  const prototype: unknown = typeof producer === "object" && producer !== null ? Object.getPrototypeOf(producer) : undefined;
  if (typeof prototype !== "object" || prototype === null) return;
  const send: unknown = Reflect.get(prototype, "send");
  const sendBatch: unknown = Reflect.get(prototype, "sendBatch");
  if (typeof send !== "function" || typeof sendBatch !== "function") return;
  Object.defineProperty(prototype, "send", {
    configurable: true,
    writable: true,
    value: async function trackedSend(this: Queue, ...args: unknown[]): Promise<unknown> {
      // Counted before the send: the broker may hand the message to the consumer (which counts it
      // off) before this continuation runs, and a count made after would then never be paid back.
      unconsumed += 1;
      try {
        return await send.apply(this, args);
      } catch (error) {
        unconsumed -= 1;
        throw error;
      }
    },
  });
  Object.defineProperty(prototype, "sendBatch", {
    configurable: true,
    writable: true,
    value: async function trackedSendBatch(this: Queue, messages: Iterable<unknown>, ...rest: unknown[]): Promise<unknown> {
      const list = [...messages];
      unconsumed += list.length;
      try {
        return await sendBatch.call(this, list, ...rest);
      } catch (error) {
        unconsumed -= list.length;
        throw error;
      }
    },
  });
}

/**
 * Wraps the audit buffer's `add` and `flush` on its prototype, so records count as pending from
 * the moment a buffer holds them (a request's group, audit-group-commit.ts, or an approval's or a
 * pin's own buffer) until the queue has them, when its backlog shows them.
 */
function trackAuditSends(): void {
  const add = AuditBuffer.prototype.add;
  AuditBuffer.prototype.add = function trackedAdd(this: AuditBuffer, record) {
    add.call(this, record);
    unsentBuffers.add(this);
  };
  const flush = AuditBuffer.prototype.flush;
  AuditBuffer.prototype.flush = function trackedFlush(this: AuditBuffer, env) {
    const records = this.size;
    unsentBuffers.delete(this);
    const sent = flush.call(this, env);
    if (records > 0) noteAuditSend(sent, `${records} audit record(s) are on their way to the audit queue`);
    return sent;
  };
}

function noteAuditSend(send: Promise<void>, what: string): void {
  const settled = send.then(
    () => undefined,
    () => undefined,
  );
  auditSends.set(settled, what);
  void settled.then(() => auditSends.delete(settled));
}

/** Patches `ctx.waitUntil` in place (the pool patches the same object the same way) to note each promise until it settles. */
function trackWaitUntil<C extends ExecutionContext>(ctx: C, what: string): C {
  const original = ctx.waitUntil.bind(ctx);
  ctx.waitUntil = (promise) => {
    const settled = Promise.resolve(promise).then(
      () => undefined,
      () => undefined,
    );
    waitUntils.set(settled, what);
    void settled.then(() => waitUntils.delete(settled));
    original(promise);
  };
  return ctx;
}

/**
 * The batch the consumer sees, with its calls to `retry`/`retryAll` noted; `record` then files
 * each retried message the way the broker treats it: back on its queue after the delay, or on
 * the dead-letter queue after its last attempt. The broker retries every message when the
 * consumer throws or calls `retryAll`, whatever it acked (miniflare's queue broker).
 */
function watchOutcome(batch: MessageBatch): { batch: MessageBatch; record(threw: boolean, settings: QueueConsumerSettings | undefined): void } {
  const retried = new Map<string, number | undefined>();
  let retryAll: { delaySeconds?: number } | undefined;
  const messages = batch.messages.map(
    (message) =>
      new Proxy(message, {
        get(target, key) {
          if (key === "retry") return (options?: QueueRetryOptions) => (retried.set(target.id, options?.delaySeconds), target.retry(options));
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
  );
  const watched = new Proxy(batch, {
    get(target, key) {
      if (key === "messages") return messages;
      if (key === "retryAll") return (options?: QueueRetryOptions) => ((retryAll = options ?? {}), target.retryAll(options));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    batch: watched,
    record(threw, settings) {
      const maxAttempts = (settings?.max_retries ?? DEFAULT_MAX_RETRIES) + 1;
      for (const message of batch.messages) {
        if (!threw && retryAll === undefined && !retried.has(message.id)) continue;
        const delaySeconds = retried.get(message.id) ?? retryAll?.delaySeconds ?? settings?.retry_delay ?? 0;
        if (message.attempts < maxAttempts) {
          retries.set(message.id, { id: message.id, from: batch.queue, on: batch.queue, dueAt: Date.now() + delaySeconds * 1000 });
        } else if (settings?.dead_letter_queue !== undefined) {
          retries.set(message.id, { id: message.id, from: batch.queue, on: settings.dead_letter_queue, dueAt: Date.now() });
        }
      }
    },
  };
}

/** Wraps `alarm` on the class's own prototype, so instances the pool creates from this export run the wrapper. */
function trackAlarm(name: string, exported: { prototype?: unknown }): void {
  const prototype = exported.prototype;
  if (typeof prototype !== "object" || prototype === null) return;
  const original: unknown = Reflect.get(prototype, "alarm");
  if (typeof original !== "function") return;
  Object.defineProperty(prototype, "alarm", {
    configurable: true,
    writable: true,
    value: async function trackedAlarm(this: { ctx?: DurableObjectState }, ...args: unknown[]): Promise<unknown> {
      const id = this.ctx?.id;
      if (id === undefined) return original.apply(this, args);
      const running: RunningAlarm = { className: name, id, instance: this };
      alarms.add(running);
      try {
        return await original.apply(this, args);
      } finally {
        alarms.delete(running);
      }
    },
  });
}
