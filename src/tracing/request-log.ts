/**
 * Every request's context and its log line, in one middleware (one dispatch frame and one
 * AsyncLocalStorage run per request; they were two of each):
 * - its id (request-id.ts), current for all the request's work (request-context.ts), including
 *   work it leaves in waitUntil, and on the response, whatever route or failure answered it;
 * - its W3C trace (trace-context.ts), for the spans of its calls;
 * - one structured JSON log line with the fields of the per-call lines (call-spans.ts LogFields).
 * Mount it first, on every path.
 */
import type { MiddlewareHandler } from "hono";
import type { LogFields } from "./call-spans.ts";
import { withRequestContext } from "./request-context.ts";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-id.ts";
import { traceContextOf } from "./trace-context.ts";

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
 * @example app.use("*", requestLog());
 */
export function requestLog(): MiddlewareHandler {
  return async function requestLogMiddleware(c, next) {
    const started = Date.now();
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    const trace = traceContextOf(c.req.header("traceparent"));
    // Set before the handler so every response built through the context carries it, and again
    // after, for responses a handler built itself.
    c.header(REQUEST_ID_HEADER, id);
    try {
      await withRequestContext({ requestId: id, trace }, next);
    } finally {
      if (c.res.headers.get(REQUEST_ID_HEADER) !== id) {
        try {
          c.res.headers.set(REQUEST_ID_HEADER, id);
        } catch {
          // Immutable headers (a response passed through from fetch): copy it once.
          c.res = new Response(c.res.body, c.res);
          c.res.headers.set(REQUEST_ID_HEADER, id);
        }
      }
      const principal = c.get("principal") as { keyId: string } | undefined;
      const errorCode = c.get(ERROR_CODE_VARIABLE) as string | undefined;
      const line: RequestLogLine = {
        event: "request",
        request_id: id,
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
