/**
 * The execute stage with its policies: the tool's circuit breaker, a deadline the handler's
 * AbortSignal honours, and retries with backoff for retryable failures, all inside the deadline.
 *
 * Nothing a handler does can hold a call past its deadline: the handler's promise is raced
 * against a timer, so one that never settles or ignores its signal is left behind (its signal
 * aborted) and the call answers TOOL_TIMEOUT. A handler whose synchronous work ran past the
 * deadline (no timer can interrupt it) answers TOOL_TIMEOUT too, its result withheld, never
 * `ok` (attempt-once.ts). A call whose deadline has passed before its handler starts answers
 * TOOL_TIMEOUT without running it.
 */
import type { RetryConfig } from "../config/config.ts";
import { RETRYABLE_STATUSES } from "../errors/retryable-statuses.ts";
import type { ToolFailure } from "../errors/tool-failure.ts";
import { resolveResources } from "../registry/resources.ts";
import type { ToolEntry } from "../registry/types.ts";
import type { BaseContext } from "./attempt-context.ts";
import { attemptOnce, DEADLINE, LATE } from "./attempt-once.ts";
import { backoffMs } from "./backoff.ts";
import { type BreakerRegistry, toolBreakerKey } from "./circuit-breaker.ts";
import type { ClientSignal, ExecutionPolicy } from "./execution-policy.ts";
import type { HandlerRun } from "./run-handler.ts";
import { sanitizeErrorText } from "./sanitize-error.ts";

export type { ClientSignal, ExecutionPolicy } from "./execution-policy.ts";

export interface Execution {
  run: HandlerRun;
  attempts: number;
}

/** How the pipeline runs a handler; the benchmark hands in a single plain attempt instead. */
export type Executor = (
  entry: ToolEntry,
  args: Record<string, unknown>,
  base: BaseContext,
  parent: ClientSignal,
  policy: ExecutionPolicy,
) => Promise<Execution>;

/** Whether another attempt could help, by the retry policy. */
export function isRetryable(failure: ToolFailure, retry: RetryConfig): boolean {
  switch (failure.kind) {
    case "own_timeout":
      return retry.retryOnTimeout;
    case "network":
      return true;
    case "upstream":
      return RETRYABLE_STATUSES.has(failure.status);
    case "handler_threw":
    case "api_error":
      return failure.retryable;
    default:
      return false;
  }
}

/** Failures that say the tool itself is in trouble, as opposed to a bad call. */
function countsAgainstTool(failure: ToolFailure, retry: RetryConfig): boolean {
  return isRetryable(failure, retry) || failure.kind === "handler_threw" || failure.kind === "timeout" || failure.kind === "bad_result_type";
}

// A handler can leave a promise that rejects after the call returned. Nothing awaits it any
// more, so it must not surface as the isolate's unhandled rejection; log it, redacted.
// (Node, which the benchmark imports this module into, has no global addEventListener.)
if (typeof globalThis.addEventListener === "function") {
  globalThis.addEventListener("unhandledrejection", function strayRejection(event) {
    event.preventDefault();
    console.error(sanitizeErrorText(`a promise rejected with nothing awaiting it (left behind by a tool): ${String(event.reason)}`));
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The executor over an isolate's breakers (one per tool, one per upstream host for `ctx.fetch`),
 * which the composition root builds once and hands to the pipeline.
 */
export function createExecutor(breakers: BreakerRegistry): Executor {
  return function execute(entry, args, base, parent, policy) {
    return executeWith(breakers, entry, args, base, parent, policy);
  };
}

function timeoutOf(entry: ToolEntry, policy: ExecutionPolicy): ToolFailure {
  return { kind: "timeout", name: entry.name, elapsedMs: Date.now() - policy.startedAt, timeoutMs: policy.limit.ms, limit: policy.limit.kind };
}

/** A handler that finished after its deadline, with what it declares it may have written. */
function overrunOf(entry: ToolEntry, args: Record<string, unknown>, policy: ExecutionPolicy): ToolFailure {
  const elapsedMs = Date.now() - policy.startedAt;
  const overran = { writes: resolveResources(entry.writes, args) };
  return { kind: "timeout", name: entry.name, elapsedMs, timeoutMs: policy.limit.ms, limit: policy.limit.kind, overran };
}

/** Runs a handler under the tool's breaker, deadline and retry policy. */
async function executeWith(
  breakers: BreakerRegistry,
  entry: ToolEntry,
  args: Record<string, unknown>,
  base: BaseContext,
  parent: ClientSignal,
  policy: ExecutionPolicy,
): Promise<Execution> {
  // A deadline already spent (the wait for approval, a dependency or the batch used it up) ends
  // the call before the handler can start side effects no one will see the result of. The race
  // below cannot promise that: a handler that settles within a few turns beats any timer. It is
  // no sign of trouble in the tool, so its breaker is left alone.
  if (Date.now() >= policy.deadlineAt) return { run: { ok: false, failure: timeoutOf(entry, policy) }, attempts: 0 };
  const breaker = breakers.get(toolBreakerKey(entry.name));
  const admission = breaker.admit(policy.breaker, Date.now());
  if (!admission.admitted) {
    return {
      run: {
        ok: false,
        failure: {
          kind: "circuit_open",
          name: entry.name,
          scope: "tool",
          target: entry.name,
          retryAfterMs: admission.retryAfterMs,
          failures: admission.failures,
        },
      },
      attempts: 0,
    };
  }
  const maxAttempts = Math.max(1, policy.retry.maxAttempts);
  // Read through a function: the signal changes while we await, which narrowing cannot see.
  const clientGone = (): boolean => parent.signal?.aborted === true;
  let attempt = 0;
  let run: HandlerRun;
  for (;;) {
    attempt += 1;
    const outcome = await attemptOnce(breakers, entry, args, base, attempt, parent, policy);
    if (outcome === DEADLINE) {
      run = { ok: false, failure: timeoutOf(entry, policy) };
      break;
    }
    if (outcome === LATE) {
      run = { ok: false, failure: overrunOf(entry, args, policy) };
      break;
    }
    run = outcome;
    if (run.ok || attempt >= maxAttempts || !isRetryable(run.failure, policy.retry) || clientGone()) break;
    const wait = Math.max(
      backoffMs(attempt, policy.retry.backoffBaseMs, policy.retry.backoffFactor, policy.random),
      "retryAfterMs" in run.failure ? (run.failure.retryAfterMs ?? 0) : 0,
    );
    // Retries stay inside the deadline: a wait that would pass it ends the call with this failure.
    if (Date.now() + wait >= policy.deadlineAt) break;
    await sleep(wait, parent.signal);
    // The client left during the wait: another attempt would repeat side effects for no one.
    if (clientGone()) break;
  }
  // A call that succeeded is not asked whether its client left (asking makes the request's signal).
  if (!run.ok && clientGone()) {
    // The client went away, so the handler was aborted: that says nothing about the tool.
    breaker.released(admission.probe);
  } else if (!run.ok && countsAgainstTool(run.failure, policy.retry)) {
    breaker.failed(policy.breaker, Date.now(), admission.probe);
  } else {
    // A failure that is the caller's, not the tool's, still shows the tool works.
    breaker.succeeded(admission.probe);
  }
  return { run, attempts: attempt };
}
