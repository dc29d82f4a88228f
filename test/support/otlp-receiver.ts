/**
 * A loopback OpenTelemetry collector for the tracing tests (upstream.ts routes http://otlp.test
 * here, in Node): it decodes each OTLP/HTTP JSON export as a collector would, refusing a body
 * that is not an ExportTraceServiceRequest, and keeps the spans for the test to read.
 *
 *   POST /<inbox>/v1/traces        200; the spans are kept in <inbox>
 *   POST /fail/v1/traces           500, as a collector in trouble
 *   POST /slow/<inbox>/v1/traces   held until GET /release/<inbox>, then as /<inbox>
 *   GET  /spans/<inbox>            the kept spans: name, ids, kind, times, status, attributes
 *                                  decoded to plain values, resource attributes, and the export's
 *                                  authorization header
 *   GET  /held/<inbox>             how many exports are held
 */
export const OTLP_HOST = "otlp.test";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
  authorization: string | null;
}

const kept = new Map<string, ReceivedSpan[]>();
const held = new Map<string, (() => void)[]>();

type KeyValue = { key: string; value: Record<string, unknown> };

function decodeValue(value: Record<string, unknown>): string | number | boolean {
  if (typeof value.stringValue === "string") return value.stringValue;
  if (typeof value.boolValue === "boolean") return value.boolValue;
  // OTLP JSON carries 64-bit integers as decimal strings.
  if (typeof value.intValue === "string" && /^-?\d+$/.test(value.intValue)) return Number(value.intValue);
  if (typeof value.doubleValue === "number") return value.doubleValue;
  throw new Error(`not an OTLP AnyValue: ${JSON.stringify(value)}`);
}

function decodeAttributes(list: unknown): Record<string, string | number | boolean> {
  if (!Array.isArray(list)) throw new Error("attributes must be a list");
  return Object.fromEntries((list as KeyValue[]).map(({ key, value }) => [key, decodeValue(value)]));
}

/** The spans of an ExportTraceServiceRequest in JSON, or an Error saying why it is not one. */
function decode(body: unknown, authorization: string | null): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const request = body as { resourceSpans?: { resource?: { attributes?: unknown }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
  if (!Array.isArray(request.resourceSpans)) throw new Error("no resourceSpans");
  for (const resourceSpans of request.resourceSpans) {
    const resource = decodeAttributes(resourceSpans.resource?.attributes ?? []);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const { traceId, spanId, name, kind, startTimeUnixNano, endTimeUnixNano, status } = span;
        if (typeof traceId !== "string" || !/^[0-9a-f]{32}$/.test(traceId)) throw new Error(`traceId ${String(traceId)} is not 32 hex digits`);
        if (typeof spanId !== "string" || !/^[0-9a-f]{16}$/.test(spanId)) throw new Error(`spanId ${String(spanId)} is not 16 hex digits`);
        if (typeof startTimeUnixNano !== "string" || typeof endTimeUnixNano !== "string") throw new Error("times must be decimal strings");
        spans.push({
          traceId,
          spanId,
          ...(typeof span.parentSpanId === "string" ? { parentSpanId: span.parentSpanId } : {}),
          name: String(name),
          kind: Number(kind),
          startTimeUnixNano,
          endTimeUnixNano,
          status: status as ReceivedSpan["status"],
          attributes: decodeAttributes(span.attributes),
          resource,
          authorization,
        });
      }
    }
  }
  return spans;
}

async function keep(request: Request, inbox: string): Promise<Response> {
  if (request.headers.get("content-type") !== "application/json") return new Response("expected application/json", { status: 415 });
  try {
    const spans = decode(await request.json(), request.headers.get("authorization"));
    kept.set(inbox, [...(kept.get(inbox) ?? []), ...spans]);
    return Response.json({});
  } catch (error) {
    return Response.json({ error: String(error) }, { status: 400 });
  }
}

/** The receiver's routes. */
export async function otlpReceiver(request: Request, url: URL): Promise<Response> {
  const parts = url.pathname.split("/").filter((part) => part !== "");
  if (request.method === "GET" && parts[0] === "spans" && parts[1] !== undefined) return Response.json(kept.get(parts[1]) ?? []);
  if (request.method === "GET" && parts[0] === "held" && parts[1] !== undefined) return Response.json({ held: held.get(parts[1])?.length ?? 0 });
  if (request.method === "GET" && parts[0] === "release" && parts[1] !== undefined) {
    for (const release of held.get(parts[1]) ?? []) release();
    held.delete(parts[1]);
    return Response.json({});
  }
  if (request.method !== "POST" || parts.at(-2) !== "v1" || parts.at(-1) !== "traces") return new Response("not an OTLP route", { status: 404 });
  if (parts[0] === "fail") return new Response("collector unavailable", { status: 500 });
  if (parts[0] === "slow" && parts[1] !== undefined) {
    const inbox = parts[1];
    await new Promise<void>((resolve) => held.set(inbox, [...(held.get(inbox) ?? []), resolve]));
    return keep(request, inbox);
  }
  return parts[0] === undefined ? new Response("no inbox", { status: 404 }) : keep(request, parts[0]);
}
