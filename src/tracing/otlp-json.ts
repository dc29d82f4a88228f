/**
 * OTLP/HTTP JSON encoding of spans (opentelemetry-proto's ExportTraceServiceRequest, JSON
 * mapping): hex trace and span ids, 64-bit times and integers as decimal strings, attributes as
 * key/value lists.
 *
 * Hand-written because the OpenTelemetry JS SDK is not among our dependencies (only
 * @opentelemetry/api is installed, which has no exporter) and may not be added here; and the
 * SDK's BatchSpanProcessor flushes on timers of its own, which a Worker does not keep alive
 * after the response unless the work is handed to waitUntil. What we send is a few fixed
 * fields per span, so the encoder is small.
 */

export type AttributeValue = string | number | boolean;

/** One finished span, as we build them (call-spans.ts). */
export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string | undefined;
  name: string;
  /** SpanKind: 1 internal (GenAI execute_tool spans are internal), 2 server. */
  kind: 1 | 2;
  startMs: number;
  endMs: number;
  attributes: Readonly<Record<string, AttributeValue | null | undefined>>;
  /** StatusCode: 0 unset, 1 ok, 2 error; with a message for errors. */
  status: { code: 0 | 1 | 2; message?: string };
}

export interface Resource {
  "service.name": string;
  [attribute: string]: AttributeValue;
}

/** The scope our spans are reported under. */
export const INSTRUMENTATION_SCOPE = { name: "toolgate" } as const;

function anyValue(value: AttributeValue): Record<string, string | boolean | number> {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function attributes(values: Readonly<Record<string, AttributeValue | null | undefined>>) {
  const list: { key: string; value: Record<string, string | boolean | number> }[] = [];
  for (const [key, value] of Object.entries(values)) if (value !== null && value !== undefined) list.push({ key, value: anyValue(value) });
  return list;
}

// Milliseconds to nanoseconds as a decimal string; BigInt keeps the digits exact past 2^53.
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

/**
 * The body of a POST to `<endpoint>/v1/traces` with content type application/json.
 *
 * @example
 * const body = JSON.stringify(otlpTraceRequest({ "service.name": "toolgate" }, spans));
 */
export function otlpTraceRequest(resource: Resource, spans: readonly Span[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [
          {
            scope: INSTRUMENTATION_SCOPE,
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(span.endMs),
              attributes: attributes(span.attributes),
              status: span.status,
            })),
          },
        ],
      },
    ],
  };
}
