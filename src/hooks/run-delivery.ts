/**
 * Runs a delivery's calls through the same stages as `POST /v1/tool-calls`
 * (src/http/routes/tool-calls.ts): the principal's access decisions, the rate-limit charge of the
 * calls that would run, `runBatch` (the dispatch pipeline with the gateway's deadlines, retries
 * and breakers), and one audit record per call. Only the door differs: the principal is the
 * hook's, the session id is the delivery id, and nobody waits on the answer.
 */
import { recordBatch, type RecordBatch } from "../audit/record-batch.ts";
import { loadConfig } from "../config/config.ts";
import type { CallOutcome } from "../dispatch/handle-function-call.ts";
import { runBatch } from "../gateway/run-batch.ts";
import { createToolAccess } from "../policy/tool-access.ts";
import { chargeCalls } from "../rate-limit/charge-calls.ts";
import { registry } from "../registry/registry.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import type { Delivery, StoredCallResult } from "./delivery-store.ts";
import { hookPrincipal } from "./hook-principal.ts";
import type { HookEntry } from "./hook-registry.ts";

/** What a finished run leaves on the delivery. */
export interface DeliveryRun {
  status: "done" | "awaiting_approval";
  results: StoredCallResult[];
}

/**
 * The approvals layer's outcome contract: a call waiting for a person ends `pending_approval`
 * with `approval`. Read structurally, so this door works before and after that layer lands.
 */
interface ApprovalOutcome {
  status: string;
  approval?: { id: string; expiresAt: number; url: string };
}

/** One call's result as the delivery keeps and serves it, approval included. */
export function storedResult(outcome: CallOutcome): StoredCallResult {
  const { approval, status } = outcome as CallOutcome & ApprovalOutcome;
  return {
    id: outcome.callId,
    tool: outcome.tool,
    status,
    error_code: outcome.errorCode ?? null,
    content: outcome.content,
    duration_ms: Math.round(outcome.durationMs),
    attempts: outcome.attempts,
    ...(approval === undefined ? {} : { approval: { id: approval.id, expires_at: approval.expiresAt, url: approval.url } }),
  };
}

/** Runs every call of the delivery once; never rejects for a call's failure (it is a result). */
export async function runDelivery(
  delivery: Delivery,
  hook: HookEntry,
  env: Env,
  waitUntil: (promise: Promise<unknown>) => void,
  record: RecordBatch = recordBatch,
): Promise<DeliveryRun> {
  const config = loadConfig(env);
  const principal = hookPrincipal(hook);
  const access = await createToolAccess(principal, kvToolsetLookup(env.KV));
  const calls = delivery.calls;
  const chargeable = calls.map((call) => (registry.has(call.name) && access.decide(call.name).allowed ? call.name : undefined));
  const refusals = await chargeCalls(env, principal, chargeable, config);
  const finishedAt: number[] = [];
  const outcomes = await runBatch(
    calls,
    { sessionId: delivery.id, env, waitUntil, access },
    { maxParallel: config.maxParallelCalls, batchTimeoutMs: config.batchTimeoutMs, refusals, onOutcome: (_outcome, i) => (finishedAt[i] = Date.now()) },
  );
  record(
    env,
    waitUntil,
    calls.map((call, i) => ({ rawArguments: call.arguments, outcome: outcomes[i] as CallOutcome, finishedAt: finishedAt[i] ?? Date.now() })),
    { keyId: principal.keyId, sessionId: delivery.id },
  );
  const results = outcomes.map(storedResult);
  return { status: runStatus(results), results };
}

/** A delivery waits for approval while any of its calls does; otherwise it is done, errors and all. */
export function runStatus(results: readonly StoredCallResult[]): DeliveryRun["status"] {
  return results.some((r) => r.status === "pending_approval" || r.approval !== undefined) ? "awaiting_approval" : "done";
}
