/**
 * A re-run of a run webhook's delivery supersedes the run of its earlier attempt. A delivery can
 * be failed while that run is still going or waiting on a person: its start message used up its
 * retries after the run had started (dead-lettered, say while D1 refused the run's id), or its
 * `run_finished` notice did. A re-run starts a new run (`<delivery id>-r<attempt>`), so without
 * this the same event would act twice: the old run taking further turns, and a person still able
 * to approve its held call. The re-run first cancels it through the Run object, with a reason
 * naming the re-run, and denies the approvals it waits on; only then is the delivery queued again.
 * The new run shares the delivery's session, so a call it makes under the very tool call id of a
 * denied one (a model server that sends no ids gets `call_<index>` in both) meets that denial:
 * never acting twice wins over the re-run's second chance at that call.
 */

import { runStub } from "../agent/run-stub.ts";
import type { RunRecord } from "../agent/run-types.ts";
import { sessionStub } from "../approvals/session-stub.ts";
import { deliveryRunId } from "./delivery-runs.ts";
import type { Delivery } from "./delivery-store.ts";

/** The earlier attempt's run as the re-run left it. */
export interface SupersededRun {
  runId: string;
  /** True when this re-run cancelled it (false: it had already ended). */
  cancelled: boolean;
  /** Its approvals this re-run denied. */
  denied: number;
}

/**
 * Cancels the run of the delivery's last attempt and denies its pending approvals, as `decidedBy`;
 * undefined when no attempt started one. Throws when the Run or Session object cannot be reached:
 * the caller must not start a new run then.
 */
export async function supersedeRun(env: Env, delivery: Delivery, decidedBy: string): Promise<SupersededRun | undefined> {
  if ((delivery.runPlan ?? null) === null || delivery.attempts === 0) return undefined;
  // The id is derived, not read: an attempt whose start died before storing run_id still started this run.
  const runId = deliveryRunId(delivery.id, delivery.attempts);
  const reason = `Superseded: delivery ${delivery.id} was re-run (POST /v1/hooks/deliveries/${delivery.id}/rerun), which starts a new run; this run of attempt ${delivery.attempts} is cancelled so the event does not act twice.`;
  // The RPC types of a record (OpenAI's message unions) are too deep for Rpc.Serializable.
  const record = (await runStub(env, runId).cancel(reason)) as RunRecord | undefined;
  if (record === undefined) return undefined;
  let denied = 0;
  for (const { approvalId } of record.pending) {
    const answer = await sessionStub(env, record.sessionId).decide({
      id: approvalId,
      sessionId: record.sessionId,
      decision: "deny",
      scope: "once",
      reason,
      decidedBy,
    });
    if (answer.ok) denied++;
  }
  return { runId, cancelled: record.status === "cancelled" && record.error?.message === reason, denied };
}
