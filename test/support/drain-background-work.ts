/**
 * A test file's teardown: waits until the background work the file started is done, so none of
 * it reaches the next file that shares this workerd (vitest.config.ts, `isolate: false`), and
 * fails the file, naming the work, when it is not done within a bound. `reset()` does not stop
 * it: it empties storage, but the queue broker keeps its messages and retry timers, and a
 * handler already running goes on writing into the next file's storage.
 */
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { auditGroupCommit } from "../../src/audit/audit-group-commit.ts";
import { forgetAlarm, pendingInLedger, runningAlarms } from "./background-ledger.ts";

/** What the drain watches, read from wrangler.toml by vitest.config.ts (TEST_BACKGROUND). */
export interface BackgroundBindings {
  /** Queue producer bindings by queue name, for their backlog. */
  producers: Record<string, string>;
  /** Durable Object namespace bindings and their classes, for their alarms. */
  durableObjects: readonly { binding: string; className: string }[];
}

export interface DrainOptions {
  /** How long the work may take to finish, in ms. */
  boundMs?: number;
  /** How long everything must stay idle before the drain believes it, in ms: one idle look can fall between a handler's end and the broker re-queueing its retry. */
  quietMs?: number;
}

const POLL_MS = 25;
/** Past the audit group commit's own delay (GROUP_MAX_DELAY_MS, 200 ms), with room for a slow timer. */
const ORPHAN_GROUP_MS = 1_000;

/**
 * Waits until no handler `waitUntil`, queue message (queued, in the consumer or waiting for a
 * retry) or Durable Object alarm due within the bound is left, then deletes the alarms due later
 * (an approval's expiry, a run's retention: state a test may leave, not work in progress).
 * Throws, listing what is still pending, when `boundMs` passes first.
 *
 * @example
 * afterAll(() => drainBackgroundWork(bindings));
 */
export async function drainBackgroundWork(bindings: BackgroundBindings, { boundMs = 5_000, quietMs = 100 }: DrainOptions = {}): Promise<void> {
  const started = Date.now();
  const deadline = started + boundMs;
  const seen = new Set<string>();
  let quietSince: number | undefined;
  for (;;) {
    const now = Date.now();
    // An audit group whose opener's timer died with its context (abortAllDurableObjects mid-wait)
    // is sent in production by the next request that adds records; no request comes here, so
    // the drain is that request, once a live timer (200 ms) would have sent it.
    if (now - started >= ORPHAN_GROUP_MS) await auditGroupCommit.sendOpen();
    const pending = [
      ...pendingInLedger(now),
      ...(await alarmsRunning(bindings)),
      ...(await queueBacklogs(bindings)),
      ...(await alarmsDueBy(bindings, deadline)),
    ];
    for (const what of pending) seen.add(what.replace(/ \(?due in \d+ ms\)?/, ""));
    if (pending.length > 0) quietSince = undefined;
    else if (quietSince === undefined) quietSince = now;
    else if (now - quietSince >= quietMs) break;
    // Past the bound with nothing pending, the quiet period decides: work that ended just at the
    // bound is not a leak (throwing here listed nothing, and failed a file in CI on 2026-12-05).
    if (now > deadline && pending.length > 0) {
      throw new Error(
        `This file left background work that did not finish within ${boundMs} ms of its last test:\n- ${pending.join("\n- ")}\n` +
          "Await the work in the test that starts it (waitForAuditRows, runUntil, a delivery's final status), or stop it there.",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  await deleteAlarmsAfter(bindings, deadline);
  // Shown only when the file fails (silent: "passed-only"), or with --silent=false to see what each file leaves.
  if (seen.size > 0) console.warn(`drainBackgroundWork: waited ${Date.now() - started} ms for:\n- ${[...seen].join("\n- ")}`);
}

/** Messages sent and not yet handed to the consumer, per queue with a producer binding. */
async function queueBacklogs({ producers }: BackgroundBindings): Promise<string[]> {
  const backlogs = await Promise.all(
    Object.entries(producers).map(async ([queue, binding]) => {
      const producer: unknown = Reflect.get(env, binding);
      if (!isQueue(producer)) return undefined;
      const { backlogCount } = await producer.metrics();
      return backlogCount > 0 ? `${backlogCount} message(s) of ${queue} wait for the consumer` : undefined;
    }),
  );
  return backlogs.filter((backlog) => backlog !== undefined);
}

/** Alarm handlers still running in a live instance; those of dropped instances are forgotten. */
async function alarmsRunning({ durableObjects }: BackgroundBindings): Promise<string[]> {
  const running = await Promise.all(
    runningAlarms().map(async (alarm) => {
      const namespace = namespaceOf(durableObjects.find(({ className }) => className === alarm.className)?.binding);
      if (namespace === undefined) return `the alarm of ${alarm.className} ${alarm.id.toString()} is still running`;
      const live = await runInDurableObject(namespace.get(alarm.id), (instance: object) => instance === alarm.instance);
      if (live) return `the alarm of ${alarm.className} ${alarm.id.toString()} is still running`;
      forgetAlarm(alarm);
      return undefined;
    }),
  );
  return running.filter((what) => what !== undefined);
}

/** Alarms set for `by` or earlier: work that will run on its own soon, in any object of the namespaces. */
async function alarmsDueBy(bindings: BackgroundBindings, by: number): Promise<string[]> {
  const due: string[] = [];
  await forEachAlarm(bindings, (name, id, at) => {
    if (at <= by) due.push(`${name} ${id} has an alarm due in ${Math.max(0, at - Date.now())} ms`);
  });
  return due;
}

async function deleteAlarmsAfter(bindings: BackgroundBindings, after: number): Promise<void> {
  await forEachAlarm(bindings, async (_name, _id, at, storage) => {
    if (at > after) await storage.deleteAlarm();
  });
}

async function forEachAlarm(
  { durableObjects }: BackgroundBindings,
  visit: (binding: string, id: string, at: number, storage: DurableObjectStorage) => void | Promise<void>,
): Promise<void> {
  await Promise.all(
    durableObjects.map(async ({ binding }) => {
      const namespace = namespaceOf(binding);
      if (namespace === undefined) return;
      const ids = await listDurableObjectIds(namespace);
      await Promise.all(
        ids.map((id) =>
          runInDurableObject(namespace.get(id), async (_instance: unknown, state: DurableObjectState) => {
            const at = await state.storage.getAlarm();
            if (at !== null) await visit(binding, id.toString(), at, state.storage);
          }),
        ),
      );
    }),
  );
}

function isQueue(value: unknown): value is Queue {
  return typeof value === "object" && value !== null && "metrics" in value && typeof value.metrics === "function";
}

function namespaceOf(binding: string | undefined): DurableObjectNamespace | undefined {
  const namespace: unknown = binding === undefined ? undefined : Reflect.get(env, binding);
  return typeof namespace === "object" && namespace !== null && "idFromName" in namespace && "get" in namespace
    ? (namespace as DurableObjectNamespace)
    : undefined;
}
