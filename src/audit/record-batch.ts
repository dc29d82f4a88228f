/**
 * The audit records of one batch: one per call, built (hashing included) when the batch's
 * outcomes are known and sent with those of concurrent requests (audit-group-commit.ts), so the
 * log costs one queue send per group rather than per request.
 *
 * Built in the request's own turn, before its response: building after the response took a
 * timer (a microtask would still run before the Response reaches the runtime), and in workerd a
 * timer per request cost more CPU than the build itself (a few us per echo record), so the
 * deferral lost throughput to save a few microseconds of latency.
 */
import type { CallOutcome } from "../pipeline/types.ts";
import type { AuditGroupCommit } from "./audit-group-commit.ts";
import type { AuditRecord } from "./audit-record.ts";
import { type AuditMeta, toAuditRecord } from "./to-audit-record.ts";

export interface AuditedCall {
  /** The arguments exactly as the model sent them (malformed text is kept). */
  rawArguments: unknown;
  outcome: CallOutcome;
  /** When the call's outcome was final (epoch ms). */
  finishedAt: number;
  /** The alias the call was made by at a curated endpoint; the record keeps it beside the real name. */
  calledAs?: string | undefined;
}

const UNRECORDABLE_ARGUMENTS = "[arguments could not be recorded: too deeply nested to redact]";

/** Records every call of a batch; `waitUntil` keeps the work alive after the response. */
export type RecordBatch = (env: Env, waitUntil: (promise: Promise<unknown>) => void, calls: readonly AuditedCall[], meta: BatchMeta) => void;

/** Who made a batch's calls, in which session and request (its x-request-id), and in which agent run (when one). */
export interface BatchMeta {
  keyId: string;
  sessionId: string;
  requestId?: string | undefined;
  runId?: string;
}

/** The audit record of every call of a batch, in order. */
export function buildAuditRecords(calls: readonly AuditedCall[], meta: BatchMeta): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (const { rawArguments, outcome, finishedAt, calledAs } of calls) {
    // Fields left undefined rather than spread in when present: toAuditRecord reads each with
    // `=== undefined`, and conditional spreads make the literal a run of slow runtime defines.
    const recordMeta: AuditMeta = {
      keyId: meta.keyId,
      sessionId: meta.sessionId,
      requestId: meta.requestId,
      runId: meta.runId,
      at: finishedAt,
      policy: outcome.policy,
      approvalId: outcome.approval?.id,
      calledAs,
    };
    try {
      records.push(toAuditRecord(outcome, rawArguments, recordMeta));
    } catch (error) {
      // Arguments that cannot be redacted or hashed (nested too deep to walk) must not cost
      // this call, or the batch's other calls, their records: record the call without them.
      console.error(`audit: arguments of call ${outcome.callId} could not be recorded: ${String(error)}`);
      records.push(toAuditRecord(outcome, UNRECORDABLE_ARGUMENTS, recordMeta));
    }
  }
  return records;
}

/** What else sees a batch's records (the composition root passes src/tracing/observe-calls.ts). */
export type ObserveRecords = (env: Env, waitUntil: (promise: Promise<unknown>) => void, records: readonly AuditRecord[]) => void;

/** The audit stage over an isolate's group commit, which the composition root builds once. */
export function createRecordBatch(groupCommit: AuditGroupCommit, observe?: ObserveRecords): RecordBatch {
  return function recordBatch(env, waitUntil, calls, meta) {
    const records = buildAuditRecords(calls, meta);
    // The isolate stays up until the group carrying these records has been handed to the queue:
    // through this request's waitUntil when it opened or sent the group, the opener's otherwise.
    const flush = groupCommit.add(env, records);
    if (flush !== undefined) waitUntil(flush);
    // After the records are in the group: a telemetry fault must not cost the audit anything.
    if (observe !== undefined) {
      try {
        observe(env, waitUntil, records);
      } catch (error) {
        console.error(`telemetry of ${records.length} call(s) failed: ${String(error)}`);
      }
    }
  };
}
