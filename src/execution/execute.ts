/**
 * The execute stage with its policies: the tool's circuit breaker, a deadline the handler's
 * AbortSignal honours, and retries with backoff for retryable failures, all inside the deadline.
 *
 * Nothing a handler does can hold a call past its deadline: the handler's promise is raced
 * against a timer, so one that never settles or ignores its signal is left behind (its signal
 * aborted) and the call answers TOOL_TIMEOUT. A handler whose synchronous work ran past the
 * deadline (no timer can interrupt it) answers TOOL_TIMEOUT too, its result withheld, never `ok`. A call whose deadline has passed before its
 * handler starts answers TOOL_TIMEOUT without running it.
 */
import type { RetryConfig } from "../config/config.ts";
import { RETRYABLE_STATUSES } from "../errors/retryable-statuses.ts";
import type { ToolFailure } from "../errors/tool-failure.ts";
import { resolveResources } from "../registry/resources.ts";
import type { ToolEntry } from "../registry/types.ts";
import { AttemptContext, type BaseContext } from "./attempt-context.ts";
import { backoffMs } from "./backoff.ts";
import { type BreakerRegistry, type BreakerSettings, toolBreakerKey } from "./circuit-breaker.ts";
import { type HandlerRun, runHandler } from "./run-handler.ts";
import { sanitizeErrorText } from "./sanitize-error.ts";
import { createUpstreamFetch } from "./upstream-fetch.ts";

export interface ExecutionPolicy {
  /** Epoch ms when the call must have answered. */
  deadlineAt: number;
  /** The limit the deadline came from, for the timeout message. */
  limit: { kind: "call" | "batch"; ms: number };
  /** When the call started, for the elapsed time in the timeout message. */
  startedAt: number;
  retry: RetryConfig;
  breaker: BreakerSettings;
  random?: () => number;
}

export interface Execution {
  run: HandlerRun;
  attempts: number;
}

/**
 * Where the client's abort signal is read, when a call needs it: a request's signal costs CPU to
 * make, so the executor reads it only for a handler that asks, a retry or a failed call.
 */
export interface ClientSignal {
  readonly signal: AbortSignal | undefined;
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
      return failure.retryable;
    default:
      return false;
  }
}

/** Failures that say the tool itself is in trouble, as opposed to a bad call. */
function countsAgainstTool(failure: ToolFailure, retry: RetryConfig): boolean {
  return isRetryable(failure, retry) || failure.kind === "handler_threw" || failure.kind === "timeout" || failure.kind === "bad_result_type";
}

const DEADLINE = Symbol("deadline");
/** The handler settled, but only after its deadline had passed. */
const LATE = Symbol("late");

// A handler can leave a promise that rejects after the call returned. Nothing awaits it any
// more, so it must not surface as the isolate's unhandled rejection; log it, redacted.
// (Node, which the benchmark imports this module into, has no global addEventListener.)
if (typeof globalThis.addEventListener === "function") {
  globalThis.addEventListener("unhandledrejection", function strayRejection(event) {
    event.preventDefault();
    console.error(sanitizeErrorText(`a promise rejected with nothing awaiting it (left behind by a tool): ${String(event.reason)}`));
  });
}

/** One macrotask turn, after which workerd's clock shows the time spent in the turns before it. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
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
 * Microtask turns to wait for a handler before arming its deadline timer. A synchronous or
 * already-settled handler finishes within a few turns (runHandler's own awaits); a timer and a
 * combined signal cost real CPU per call in workerd, so quick calls skip both.
 */
const QUICK_TURNS = 8;

/** One attempt, raced against the deadline. */
async function attemptOnce(
  breakers: BreakerRegistry,
  entry: ToolEntry,
  args: Record<string, unknown>,
  base: BaseContext,
  attempt: number,
  parent: ClientSignal,
  policy: ExecutionPolicy,
): Promise<HandlerRun | typeof DEADLINE | typeof LATE> {
  // Built only when the handler (or ctx.fetch) asks for the signal or the deadline fires.
  let controller: AbortController | undefined;
  let signal: AbortSignal | undefined;
  const signalOf = (): AbortSignal => {
    controller ??= new AbortController();
    // The handler stops at the deadline (controller) or when the client goes away (parent).
    const client = parent.signal;
    signal ??= client === undefined ? controller.signal : AbortSignal.any([controller.signal, client]);
    return signal;
  };
  // Past the deadline, whatever the handler left running (a fetch, a timer) stops with the call.
  const expire = (): void => {
    controller ??= new AbortController();
    controller.abort(new DOMException(`'${entry.name}' passed its deadline`, "TimeoutError"));
  };
  const context = new AttemptContext(base, attempt, policy.deadlineAt, {
    signal: signalOf,
    fetch: () => createUpstreamFetch(entry.name, signalOf(), policy.breaker, breakers),
  });

  /** A settled run as the call's answer: late past the deadline; a handler's own timeout (its budget was the deadline's) expires the call too. */
  const settledIn = (run: HandlerRun): HandlerRun | typeof LATE => {
    const late = Date.now() >= policy.deadlineAt;
    if (late || (!run.ok && run.failure.kind === "timeout")) expire();
    return late ? LATE : run;
  };
  let settled: HandlerRun | undefined;
  const running = runHandler(entry, args, context).then((run) => (settled = run));
  for (let turn = 0; turn < QUICK_TURNS && settled === undefined; turn++) await undefined;
  // No I/O happened, so the clock has not moved since the check before the call: no timer needed.
  if (settled !== undefined) return settledIn(settled);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(DEADLINE), Math.max(0, policy.deadlineAt - Date.now()));
  });
  try {
    const outcome = await Promise.race([running, deadline]);
    if (outcome === DEADLINE) {
      expire();
      return outcome;
    }
    // A handler's last synchronous stretch can run past the deadline: no timer fires during it,
    // and its promise settles before the timer's turn comes. workerd's clock only moves between
    // events, so one timer turn brings it up to date before the result is believed.
    await nextTurn();
    return settledIn(outcome);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
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
