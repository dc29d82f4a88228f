/**
 * The request id and W3C trace of the code running now, carried through awaits, timers and
 * `waitUntil` work by AsyncLocalStorage (nodejs_compat), so a log line or span made deep in a
 * tool or an audit send can name its request without every function taking the id. Code that writes stored records takes
 * the id explicitly from its request scope; this is for log lines and for the few writers that
 * run outside a scope (pin events, approval decisions).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A W3C trace context (trace-context.ts reads and makes them). */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The caller's span (16 hex digits), parent of ours; undefined when we started the trace. */
  parentSpanId?: string;
}

/** What code running for a request can learn of it: its id, and its trace (trace-context.ts). */
export interface RequestContext {
  requestId: string;
  trace?: TraceContext;
}

// One store for both: each AsyncLocalStorage.run is a frame and a context switch on every request.
const current = new AsyncLocalStorage<RequestContext>();

/** Runs `work` as the request `context`. */
export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return current.run(context, work);
}

/** Runs `work` with `requestId` as the current request's id, in no trace. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return current.run({ requestId }, work);
}

/** The current request's id, or undefined outside any request (a cron run, module load). */
export function currentRequestId(): string | undefined {
  return current.getStore()?.requestId;
}

/** The current request's trace, or undefined outside a request (a queue consumer, a cron run). */
export function currentTraceContext(): TraceContext | undefined {
  return current.getStore()?.trace;
}
