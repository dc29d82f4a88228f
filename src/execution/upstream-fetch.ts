/**
 * `ctx.fetch`: how a tool calls out. It is the platform's fetch bound to the call (its signal
 * stops the request at the call's deadline) with the per-host circuit breaker in front and the
 * failures the gateway knows how to handle turned into typed ones: network errors, and HTTP
 * 429/502/503/504 with their Retry-After. Every other response goes back to the tool.
 */
import { RETRYABLE_STATUSES } from "../errors/retryable-statuses.ts";
import { ToolFailureError } from "../errors/tool-failure.ts";
import { retryAfterMs } from "./backoff.ts";
import { type BreakerRegistry, type BreakerSettings, hostBreakerKey } from "./circuit-breaker.ts";

export type UpstreamFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** True for the error a fetch rejects with when its own AbortSignal.timeout fires. */
export function isTimeoutError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "TimeoutError";
}

/** A fetch for one call of `tool`, bounded by `signal` and guarded per upstream host (by `breakers`). */
export function createUpstreamFetch(
  tool: string,
  signal: AbortSignal,
  settings: BreakerSettings,
  breakers: BreakerRegistry,
  now: () => number = Date.now,
): UpstreamFetch {
  return async function upstreamFetch(input, init) {
    const url = new URL(input instanceof Request ? input.url : input);
    const host = url.host;
    const breaker = breakers.get(hostBreakerKey(host));
    const admission = breaker.admit(settings, now());
    if (!admission.admitted) {
      throw new ToolFailureError({
        kind: "circuit_open",
        name: tool,
        scope: "host",
        target: host,
        retryAfterMs: admission.retryAfterMs,
        failures: admission.failures,
      });
    }
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    } catch (error) {
      if (signal.aborted) {
        // The call's deadline (or the client) stopped it: no verdict on the host.
        breaker.released(admission.probe);
        throw error;
      }
      breaker.failed(settings, now(), admission.probe);
      const detail = error instanceof Error ? error.message : String(error);
      if (isTimeoutError(error)) throw new ToolFailureError({ kind: "own_timeout", name: tool, detail: `${host}: ${detail}`, retryable: true });
      throw new ToolFailureError({ kind: "network", name: tool, host, detail });
    }
    if (RETRYABLE_STATUSES.has(response.status)) {
      breaker.failed(settings, now(), admission.probe);
      const detail = (await response.text().catch(() => "")).slice(0, 300);
      const wait = retryAfterMs(response.headers.get("retry-after"), now());
      throw new ToolFailureError({ kind: "upstream", name: tool, status: response.status, detail, ...(wait === undefined ? {} : { retryAfterMs: wait }) });
    }
    breaker.succeeded(admission.probe);
    return response;
  };
}
