/**
 * Runs a delivery's calls through `serveCalls`, the stages every door shares (rate-limit charge,
 * the pipeline with the gateway's deadlines, retries and breakers, one audit record per call).
 * Only the door differs: the principal is the hook's, the session id is the delivery id, and
 * nobody waits on the answer.
 */
import { recordBatch, type RecordBatch } from "../audit/record-batch.ts";
import { loadConfig } from "../config/config.ts";
import type { CallOutcome } from "../dispatch/handle-function-call.ts";
import { REAL_STAGES, serveCalls } from "../batch/serve-calls.ts";
import { federation } from "../mcp/federation/federation.ts";
import { createToolAccess } from "../policy/tool-access.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import type { Delivery, StoredCallResult } from "./delivery-store.ts";
import { hookPrincipal } from "./hook-principal.ts";
import type { HookEntry } from "./hook-registry.ts";

/** What a finished run leaves on the delivery. */
export interface DeliveryRun {
  status: "done" | "awaiting_approval";
  results: StoredCallResult[];
}

/** One call's result as the delivery keeps and serves it, approval included. */
export function storedResult(outcome: CallOutcome): StoredCallResult {
  const { approval, status } = outcome;
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
  // The consumer's isolate may never have served a request: remote MCP tools must be registered
  // before a call names one, or it would end UNKNOWN_TOOL.
  await federation.ensure(env);
  const principal = hookPrincipal(hook);
  const access = await createToolAccess(principal, kvToolsetLookup(env.KV));
  const outcomes = await serveCalls(
    delivery.calls,
    { env, principal, access, sessionId: delivery.id, waitUntil, maxParallel: config.maxParallelCalls, config },
    { ...REAL_STAGES, recordBatch: record },
  );
  const results = outcomes.map(storedResult);
  return { status: runStatus(results), results };
}

/**
 * A delivery waits for approval while any of its calls does; otherwise it is done, errors and
 * all. A settled call keeps its `approval` (which approval decided it), so only the status counts.
 */
export function runStatus(results: readonly StoredCallResult[]): DeliveryRun["status"] {
  return results.some((r) => r.status === "pending_approval") ? "awaiting_approval" : "done";
}
