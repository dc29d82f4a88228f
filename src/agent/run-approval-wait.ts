/**
 * A run waiting on a person: settled approvals fill in the held results, and the alarm stands
 * behind the Session object's wake (src/approvals/run-wakeups.ts) as a fallback, never a poll.
 */
import { type ApprovalView, isSettled } from "../approvals/approval-view.ts";
import { sessionStub } from "../approvals/session-stub.ts";
import type { RunHost } from "./run-host.ts";
import type { RunRecord } from "./run-types.ts";

/** How long after an approval's expiry the run reads it itself, if no wake came. */
const WAKE_FALLBACK_MS = 30_000;

/** Applies settled approvals to the held results; releases the step when none waits. */
export async function applySettled(host: RunHost, record: RunRecord, views: readonly ApprovalView[]): Promise<void> {
  let held = record.held;
  let pending = record.pending;
  for (const view of views) {
    if (!isSettled(view) || view.result === undefined) continue;
    const waiting = pending.find((p) => p.approvalId === view.id);
    if (waiting === undefined) continue;
    const content = view.result.content;
    held = held.map((h) => (h.callId === waiting.callId ? { ...h, content } : h));
    pending = pending.filter((p) => p !== waiting);
    host.events.emit("approval.settled", {
      call_id: waiting.callId,
      tool: waiting.tool,
      approval_id: view.id,
      status: view.status,
      result_status: view.result.status,
      error_code: view.result.errorCode,
      content,
    });
  }
  const next = { ...record, held, pending, updatedAt: Date.now() };
  if (pending.length > 0) {
    host.store.save(next);
    await setFallbackAlarm(host, next);
    return;
  }
  await host.release(next);
}

/** The alarm's fallback: reads every waiting approval from its Session object (the truth). */
export async function refreshPending(host: RunHost, record: RunRecord): Promise<void> {
  if (Date.now() >= record.limits.deadlineAt)
    return void (await host.finish(record, "limit_reached", {
      error: { code: "RUN_DEADLINE", message: "The run's deadline passed while a call waited for approval." },
    }));
  const session = sessionStub(host.env, record.sessionId);
  const views = await Promise.all(record.pending.map((p) => session.get(p.approvalId, record.sessionId)));
  await applySettled(
    host,
    record,
    views.flatMap((v) => (v === undefined ? [] : [v])),
  );
}

/** Sets the alarm to the latest waiting approval's expiry plus WAKE_FALLBACK_MS, within the run's deadline. */
export async function setFallbackAlarm(host: RunHost, record: RunRecord): Promise<void> {
  const latest = Math.max(...record.pending.map((p) => p.expiresAt));
  await host.storage.setAlarm(Math.min(latest + WAKE_FALLBACK_MS, record.limits.deadlineAt));
}
