/**
 * One structured JSON log line per request, with the fields of the per-call lines (call-spans.ts
 * LogFields), and the request's trace context (trace-context.ts) for the spans of its calls.
 * Mount it right after requestId(), on every path.
 */
import type { MiddlewareHandler } from "hono";
import type { LogFields } from "./call-spans.ts";
import { currentRequestId } from "./request-context.ts";
import { traceContextOf, withTraceContext } from "./trace-context.ts";

/** The context variable a failure response sets to its error_code (src/http/request-failure.ts). */
export const ERROR_CODE_VARIABLE = "errorCode";

export interface RequestLogLine extends LogFields {
  event: "request";
  method: string;
  path: string;
}

/**
 * The middleware.
 *
 * @example app.use("*", requestId(), requestLog());
 */
export function requestLog(): MiddlewareHandler {
  return async function requestLogMiddleware(c, next) {
    const started = Date.now();
    const trace = traceContextOf(c.req.header("traceparent"));
    try {
      await withTraceContext(trace, next);
    } finally {
      const principal = c.get("principal") as { keyId: string } | undefined;
      const errorCode = c.get(ERROR_CODE_VARIABLE) as string | undefined;
      const line: RequestLogLine = {
        event: "request",
        request_id: currentRequestId() ?? null,
        trace_id: trace.traceId,
        principal: principal?.keyId ?? null,
        status: c.res.status,
        error_code: errorCode ?? null,
        // Workers' clock advances only across I/O, so this is the request's I/O time, not its CPU.
        duration_ms: Date.now() - started,
        method: c.req.method,
        path: c.req.path,
      };
      console.log(JSON.stringify(line));
    }
  };
}
