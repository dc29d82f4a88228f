/**
 * A run's end: its final record and `run.finished` event, its index row and search document
 * (session_search, run-search.ts), for a run a webhook delivery started, the `run_finished`
 * notice on the hooks queue, with the alarm as the retry until the queue takes it; for a run a
 * schedule started, a report to its Schedule object.
 */
import type { RunFinishedMessage } from "../webhooks/webhook-message.ts";
import { expiresAt } from "./run-expiry.ts";
import type { FinishFields, RunHost } from "./run-host.ts";
import { writeRunIndex } from "./run-index.ts";
import { indexRun } from "./run-search.ts";
import type { RunRecord, RunStatus } from "./run-types.ts";

/** When a webhook run's end notice is sent again if the queue has not taken it by then. */
const HOOK_NOTICE_RETRY_MS = 30_000;

/** Ends the run with `status` and returns the record as stored after its end notice. */
export async function finishRun(host: RunHost, record: RunRecord, status: RunStatus, fields: FinishFields): Promise<RunRecord> {
  const done: RunRecord = { ...record, ...fields, status, nextStepAt: null, updatedAt: Date.now() };
  host.store.save(done);
  host.events.emit("run.finished", {
    status,
    answer: done.answer,
    finish_reason: done.finishReason,
    client_tool_calls: done.clientToolCalls,
    error: done.error,
    usage: done.usage,
    turns: done.turns,
    tool_calls: done.toolCalls,
  });
  // A webhook run's alarm first stands behind its end notice (set before the send: if this
  // instance dies before the queue takes it, the alarm sends it); the run's expiry then sets retention's.
  await host.storage.setAlarm(done.hook === undefined ? expiresAt(host.env, done) : Date.now() + HOOK_NOTICE_RETRY_MS);
  await writeRunIndex(host.env.DB, done);
  await indexRun(host.env.DB, done, host.store.messages());
  if (done.hook !== undefined) await tellHook(host, done);
  if (done.schedule !== undefined) await tellSchedule(host, done);
  return host.store.record() ?? done;
}

/**
 * Tells the schedule behind the run that it ended. A report that does not arrive is not retried:
 * the schedule reads the run itself at its next firing (schedule-object.ts, reconcile).
 */
async function tellSchedule(host: RunHost, record: RunRecord): Promise<void> {
  if (record.schedule === undefined) return;
  try {
    const schedules = host.env.SCHEDULES;
    await schedules.get(schedules.idFromName(record.schedule.id)).runFinished({ runId: record.id, status: record.status });
  } catch (error) {
    console.warn(`run ${record.id}: schedule ${record.schedule.id} was not told of its end; it reads the run at its next firing: ${String(error)}`);
  }
}

/** Queues the `run_finished` notice to the delivery behind the run; a refused send waits for the alarm. */
export async function tellHook(host: RunHost, record: RunRecord): Promise<void> {
  if (record.hook === undefined) return;
  const notice: RunFinishedMessage = { kind: "run_finished", deliveryId: record.hook.deliveryId, runId: record.id };
  try {
    await host.env.HOOKS_QUEUE.send(notice, { contentType: "json" });
    host.store.save({ ...(host.store.record() ?? record), hookNotified: true });
  } catch (error) {
    console.warn(`run ${record.id}: the end notice to delivery ${record.hook.deliveryId} was not queued, the alarm retries: ${String(error)}`);
    await host.storage.setAlarm(Date.now() + HOOK_NOTICE_RETRY_MS);
  }
}
