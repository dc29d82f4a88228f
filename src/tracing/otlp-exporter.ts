/**
 * Sends spans to an OpenTelemetry collector over OTLP/HTTP JSON, configured the standard way:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (the base URL; spans go to `<base>/v1/traces`) and
 * `OTEL_EXPORTER_OTLP_HEADERS` (`name=value,name2=value2`, values URL-encoded; set it as a
 * secret, since it usually carries the collector's API key). Unset endpoint: nothing is built or
 * sent.
 *
 * An export runs in the request's waitUntil, after the response, so a collector that is down,
 * slow or failing costs a call no latency; the audit record travels its own path (the queue), so
 * it costs no record either. A failed export is not retried (spans are for now, not for the
 * record): it is counted in D1 (telemetry-counters.ts), which GET /metrics shows, and its spans
 * are dropped. A slow collector is cut off after OTLP_TIMEOUT_MS, so an isolate's waitUntil does
 * not wait on it for long.
 */

import { HEADER_NAME_PATTERN } from "../net/header-name.ts";
import { otlpTraceRequest, type Resource, type Span } from "./otlp-json.ts";
import { addToCounters, OTLP_EXPORT_FAILURES, OTLP_SPANS_DROPPED } from "./telemetry-counters.ts";

/** How long an export may take before it is abandoned and counted as failed. */
export const OTLP_TIMEOUT_MS = 5_000;

export const OTLP_RESOURCE: Resource = { "service.name": "toolgate" };

export interface OtlpEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  DB: Pick<D1Database, "prepare" | "batch">;
}

export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
}

// Parsed once per configuration an isolate sees (there is one, unless a test brings its own).
const targets = new Map<string, OtlpTarget | Error>();

/**
 * Where spans go, or undefined when no endpoint is set, or an Error naming what is wrong with
 * the settings (a relative or non-HTTP URL, a header without `=`).
 */
export function otlpTarget(env: Omit<OtlpEnv, "DB">): OtlpTarget | Error | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base === undefined || base === "") return undefined;
  const headerText = env.OTEL_EXPORTER_OTLP_HEADERS ?? "";
  const cacheKey = `${base}\n${headerText}`;
  const cached = targets.get(cacheKey);
  if (cached !== undefined) return cached;
  const target = parseTarget(base, headerText);
  targets.set(cacheKey, target);
  return target;
}

function parseTarget(base: string, headerText: string): OtlpTarget | Error {
  let url: URL;
  try {
    url = new URL(`${base.replace(/\/+$/, "")}/v1/traces`);
  } catch {
    return new Error(`OTEL_EXPORTER_OTLP_ENDPOINT is not a URL: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return new Error(`OTEL_EXPORTER_OTLP_ENDPOINT must be http(s), not ${url.protocol}`);
  const headers: Record<string, string> = {};
  for (const pair of headerText.split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    const name = pair.slice(0, at).trim();
    // The value is a secret: name only the header in the error.
    if (at < 1 || !HEADER_NAME_PATTERN.test(name)) return new Error(`OTEL_EXPORTER_OTLP_HEADERS has an entry without name=value (${JSON.stringify(name)})`);
    try {
      headers[name.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return new Error(`OTEL_EXPORTER_OTLP_HEADERS: the value of ${name} is not URL-encoded text`);
    }
  }
  return { url: url.href, headers };
}

/**
 * POSTs `spans` to the collector. Never rejects (it runs in waitUntil); a failure is logged as a
 * JSON line and counted.
 */
export async function exportSpans(env: OtlpEnv, target: OtlpTarget | Error, spans: readonly Span[]): Promise<void> {
  if (spans.length === 0) return;
  try {
    if (target instanceof Error) throw target;
    const response = await fetch(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: JSON.stringify(otlpTraceRequest(OTLP_RESOURCE, spans)),
      signal: AbortSignal.timeout(OTLP_TIMEOUT_MS),
    });
    // Read to the end so the connection is released; a collector's reply is small.
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the collector answered ${response.status}`);
  } catch (error) {
    console.warn(JSON.stringify({ event: "otlp_export_failed", spans: spans.length, error: String(error) }));
    try {
      await addToCounters(env.DB, { [OTLP_EXPORT_FAILURES]: 1, [OTLP_SPANS_DROPPED]: spans.length });
    } catch (dbError) {
      console.warn(JSON.stringify({ event: "otlp_failure_not_counted", error: String(dbError) }));
    }
  }
}
