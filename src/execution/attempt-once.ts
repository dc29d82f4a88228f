/**
 * One attempt of a handler, raced against the call's deadline: the handler's signal and fetch
 * made only when it asks for them, a quick path without a timer for handlers that settle within
 * a few microtask turns, and the truth about a result that arrives after the deadline.
 */
import type { ToolEntry } from "../registry/types.ts";
import { AttemptContext, type BaseContext } from "./attempt-context.ts";
import type { BreakerRegistry } from "./circuit-breaker.ts";
import type { ClientSignal, ExecutionPolicy } from "./execution-policy.ts";
import { type HandlerRun, runHandler } from "./run-handler.ts";
import { createUpstreamFetch } from "./upstream-fetch.ts";

export const DEADLINE = Symbol("deadline");
/** The handler settled, but only after its deadline had passed. */
export const LATE = Symbol("late");

/** One macrotask turn, after which workerd's clock shows the time spent in the turns before it. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Microtask turns to wait for a handler before arming its deadline timer. A synchronous or
 * already-settled handler finishes within a few turns (runHandler's own awaits); a timer and a
 * combined signal cost real CPU per call in workerd, so quick calls skip both.
 */
const QUICK_TURNS = 8;

/** One attempt, raced against the deadline. */
export async function attemptOnce(
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
