/**
 * What each tool call tells an operator's tools: a span following the OpenTelemetry GenAI
 * semantic conventions for tool execution (span `execute_tool <tool>`, `gen_ai.operation.name`
 * `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`; an error's code as `error.type`),
 * and one JSON log line. Both are made from the call's audit record, which every door's calls
 * produce exactly once (src/audit/record-batch.ts), so no door can forget them.
 */
import { type AuditRecord, FAILED_STATUSES } from "../audit/audit-record.ts";
import type { Span } from "./otlp-json.ts";
import type { TraceContext } from "./request-context.ts";

/**
 * The fields every structured log line carries, per request and per call alike, so one query
 * (`request_id = ...`, `principal = ...`, `error_code = ...`) finds both kinds.
 */
export interface LogFields {
  event: "request" | "tool_call";
  request_id: string | null;
  trace_id: string;
  /** The key id the request authenticated as; null before (or without) authentication. */
  principal: string | null;
  /** A call's audit status; a request's HTTP status. */
  status: string | number;
  error_code: string | null;
  duration_ms: number;
}

export interface CallLogLine extends LogFields {
  event: "tool_call";
  span_id: string;
  tool: string;
  tool_call_id: string;
  session_id: string;
}

/**
 * The span of one call, whose id its log line names too. Built only when spans are exported
 * (observe-calls.ts): most deployments set no OTLP endpoint, and the span was thrown away.
 */
export function callSpan(record: AuditRecord, trace: TraceContext, spanId: string): Span {
  const failed = FAILED_STATUSES.includes(record.status);
  return {
    traceId: trace.traceId,
    spanId,
    parentSpanId: trace.parentSpanId,
    name: `execute_tool ${record.tool}`,
    kind: 1,
    startMs: record.at - record.durationMs,
    endMs: record.at,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": record.tool,
      "gen_ai.tool.call.id": record.toolCallId,
      "error.type": record.errorCode,
      "toolgate.request_id": record.requestId,
      "toolgate.principal": record.keyId,
      "toolgate.session_id": record.sessionId,
      "toolgate.status": record.status,
      "toolgate.error_code": record.errorCode,
      "toolgate.duration_ms": record.durationMs,
    },
    status: failed ? { code: 2, message: record.errorCode ?? record.status } : { code: 0 },
  };
}

/** The log line of one call; `spanId` is its span's, exported or not. */
export function callLogLine(record: AuditRecord, trace: TraceContext, spanId: string): CallLogLine {
  return {
    event: "tool_call",
    request_id: record.requestId,
    trace_id: trace.traceId,
    principal: record.keyId,
    status: record.status,
    error_code: record.errorCode,
    duration_ms: record.durationMs,
    span_id: spanId,
    tool: record.tool,
    tool_call_id: record.toolCallId,
    session_id: record.sessionId,
  };
}
