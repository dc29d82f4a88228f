/**
 * Telemetry of a batch of calls, from their audit records: one JSON log line per call, and, with
 * an OTLP endpoint set, their spans sent in one export after the response (otlp-exporter.ts).
 * The composition root hands this to the audit stage (src/audit/record-batch.ts), the one place
 * every door's calls pass.
 */
import type { AuditRecord } from "../audit/audit-record.ts";
import { callLogLine, callSpan } from "./call-spans.ts";
import { exportSpans, type OtlpEnv, otlpTarget } from "./otlp-exporter.ts";
import type { Span } from "./otlp-json.ts";
import { currentTraceContext } from "./request-context.ts";
import { randomHex } from "./trace-context.ts";

/** Logs and traces `records`; `waitUntil` carries the export past the response. */
export function observeCalls(env: OtlpEnv, waitUntil: (promise: Promise<unknown>) => void, records: readonly AuditRecord[]): void {
  // Calls made outside a request (a webhook delivery's queue consumer, an alarm) start a trace.
  const trace = currentTraceContext() ?? { traceId: randomHex(16) };
  const target = otlpTarget(env);
  const spans: Span[] = [];
  for (const record of records) {
    const spanId = randomHex(8);
    console.log(JSON.stringify(callLogLine(record, trace, spanId)));
    if (target !== undefined) spans.push(callSpan(record, trace, spanId));
  }
  if (target !== undefined && spans.length > 0) waitUntil(exportSpans(env, target, spans));
}
