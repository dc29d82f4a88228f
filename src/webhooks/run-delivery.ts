/**
 * Runs a delivery's calls through `serveCalls`, the stages every door shares (rate-limit charge,
 * the pipeline with the gateway's deadlines, retries and breakers, one audit record per call).
 * Only the door differs: the principal is the webhook's, the session id is the delivery id, and
 * nobody waits on the answer.
 */
import type { RecordBatch } from "../audit/record-batch.ts";
import { serveCalls } from "../batch/serve-calls.ts";
import type { GatewayParts } from "../compose.ts";
import { loadConfig } from "../config/config.ts";
import { deliveryStatusOf } from "../formats/outcome-wire.ts";
import { openScope } from "../pipeline/request-scope.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import { createToolAccess } from "../policy/tool-access.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import { withRequestId } from "../tracing/request-context.ts";
import type { Delivery, StoredCallResult } from "./delivery-store.ts";
import { webhookPrincipal } from "./webhook-principal.ts";
import type { WebhookEntry } from "./webhook-registry.ts";

/** What a finished run leaves on the delivery. */
export interface DeliveryRun {
  status: ReturnType<typeof deliveryStatusOf>;
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
  hook: WebhookEntry,
  env: Env,
  waitUntil: (promise: Promise<unknown>) => void,
  parts: GatewayParts,
  record: RecordBatch = parts.batch.recordBatch,
): Promise<DeliveryRun> {
  const config = loadConfig(env);
  const principal = webhookPrincipal(hook);
  // The consumer's isolate may never have served a request: opening the scope syncs remote MCP
  // tools before the webhook's toolsets (which may name a remote server's) are resolved.
  const access = () => createToolAccess(principal, kvToolsetLookup(env.KV));
  const requestId = delivery.requestId ?? undefined;
  const scope = await openScope(parts.pipeline, {
    env,
    config,
    principal,
    access,
    sessionId: delivery.id,
    waitUntil,
    ...(requestId === undefined ? {} : { requestId }),
  });
  const serve = () => serveCalls(delivery.calls, scope, config.maxParallelCalls, { ...parts.batch, recordBatch: record });
  // The calls' log lines name the request that delivered them, as their audit rows do.
  const outcomes = await (requestId === undefined ? serve() : withRequestId(requestId, serve));
  const results = outcomes.map(storedResult);
  return { status: deliveryStatusOf(results), results };
}
