/**
 * What every door does with a key's tool calls, around the pipeline: charge them against the
 * key's rate limits, run them (runBatch: deadlines, retries, breakers, ordering), and record one
 * audit record per call after the response. POST /v1/tool-calls and the MCP door's tools/call
 * both go through here, so a call is limited, run and audited the same way whichever door it
 * came in by.
 */
import { recordBatch, type RecordBatch } from "../audit/record-batch.ts";
import type { Principal } from "../auth/principal.ts";
import type { GatewayConfig } from "../config/config.ts";
import type { CallOutcome } from "../dispatch/handle-function-call.ts";
import type { ToolAccess } from "../policy/tool-access.ts";
import { chargeCalls } from "../rate-limit/charge-calls.ts";
import { registry } from "../registry/registry.ts";
import type { ClientChannel } from "../registry/types.ts";
import { runBatch, type BatchCall } from "./run-batch.ts";

/** How a batch's calls are run: the gateway's runBatch, unless the app is built with another. */
export type RunCalls = typeof runBatch;

/**
 * The stages of a batch around the pipeline. The Worker uses the real ones; the benchmark
 * replaces some to measure what each layer costs (createApp's options).
 */
export interface BatchStages {
  runCalls: RunCalls;
  chargeCalls: typeof chargeCalls;
  recordBatch: RecordBatch;
}

export const REAL_STAGES: BatchStages = { runCalls: runBatch, chargeCalls, recordBatch };

/** Who is calling and how, for one batch. */
export interface ServeCallsRequest {
  env: Env;
  principal: Principal;
  access: ToolAccess;
  /** The request's toolset: tools outside it get PERMISSION_DENIED. */
  allowedTools?: { toolset: string; names: ReadonlySet<string> };
  sessionId: string;
  /** The client went away: handlers are aborted and no retry starts. */
  signal?: AbortSignal;
  waitUntil: (promise: Promise<unknown>) => void;
  maxParallel: number;
  config: GatewayConfig;
  /** The way back to the caller during the calls (the MCP door); silent when absent. */
  client?: ClientChannel;
  /** The origin the caller reached us at (`https://host`), for the approval page's URL. */
  origin?: string;
}

/**
 * Runs a key's calls through rate limits, the pipeline and the audit log; never rejects. The
 * result has exactly one outcome per call, in order (checked here, where each is audited).
 */
export async function serveCalls(calls: readonly BatchCall[], request: ServeCallsRequest, stages: BatchStages = REAL_STAGES): Promise<CallOutcome[]> {
  const { env, principal, access, allowedTools, config } = request;
  // Only calls that will reach their handler's stage count against the key's rate limits.
  const chargeable = calls.map((call) =>
    registry.has(call.name) && access.decide(call.name).allowed && (allowedTools === undefined || allowedTools.names.has(call.name)) ? call.name : undefined,
  );
  const refusals = await stages.chargeCalls(env, principal, chargeable, config);
  const finishedAt: number[] = [];
  const outcomes = await stages.runCalls(
    calls,
    {
      sessionId: request.sessionId,
      env,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      waitUntil: request.waitUntil,
      access,
      ...(allowedTools === undefined ? {} : { allowedTools }),
      ...(request.client === undefined ? {} : { client: request.client }),
      keyId: principal.keyId,
      ...(request.origin === undefined ? {} : { origin: request.origin }),
    },
    { maxParallel: request.maxParallel, batchTimeoutMs: config.batchTimeoutMs, refusals, onOutcome: (_outcome, i) => (finishedAt[i] = Date.now()) },
  );
  const audited = calls.map((call, i) => ({ rawArguments: call.arguments, outcome: outcomes[i] ?? missing(call.id), finishedAt: finishedAt[i] ?? Date.now() }));
  stages.recordBatch(env, request.waitUntil, audited, { keyId: principal.keyId, sessionId: request.sessionId });
  return outcomes;
}

function missing(id: string): never {
  throw new Error(`batch returned no outcome for call ${id}`);
}
