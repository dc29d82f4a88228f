/** The audit routes' JSON shapes (snake_case, as every toolgate response); their schemas, for OpenAPI, are in audit-wire-schema.ts. */
import type { z } from "@hono/zod-openapi";
import { argumentsSha256Of } from "./arguments-hash.ts";
import { type AuditRecord, auditRecordId } from "./audit-record.ts";
import type { CallStats } from "./audit-stats.ts";
import type { AuditRecordWireSchema, CallStatsWireSchema } from "./audit-wire-schema.ts";

export type AuditRecordWire = z.infer<typeof AuditRecordWireSchema>;

/** A stored record as the API shows it. */
export function toWireRecord(r: AuditRecord): AuditRecordWire {
  return {
    id: auditRecordId(r),
    time: new Date(r.at).toISOString(),
    key_id: r.keyId,
    session_id: r.sessionId,
    ...(r.runId === undefined || r.runId === null ? {} : { run_id: r.runId }),
    tool_call_id: r.toolCallId,
    tool: r.tool,
    ...(r.calledAs === undefined || r.calledAs === null ? {} : { called_as: r.calledAs }),
    toolset: r.toolset,
    // Always valid JSON: canonical JSON, or the truncation marker serialised.
    arguments: JSON.parse(r.arguments),
    arguments_truncated: r.argumentsTruncated,
    arguments_sha256: argumentsSha256Of(r),
    coercions: r.coercions,
    coercion_count: r.coercionCount,
    policy_decision: r.policyDecision,
    policy_rule: r.policyRule,
    approval_id: r.approvalId,
    status: r.status,
    error_code: r.errorCode,
    error_message: r.errorMessage,
    attempts: r.attempts,
    duration_ms: r.durationMs,
    result_chars: r.resultChars,
    truncated: r.truncated,
    request_id: r.requestId,
    credential: r.credential ?? null,
    ...(r.decision === undefined
      ? {}
      : { decision: { by: r.decision.by, time: new Date(r.decision.at).toISOString(), scope: r.decision.scope, reason: r.decision.reason } }),
  };
}

/** Call stats as the API shows them. */
export function toWireStats(s: CallStats): z.infer<typeof CallStatsWireSchema> {
  return { calls: s.calls, errors: s.errors, error_rate: s.errorRate, p50_ms: s.p50Ms, p95_ms: s.p95Ms, statuses: s.statuses, top_messages: s.topMessages };
}
