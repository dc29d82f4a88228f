/**
 * Runs the calls of one batch: concurrently, at most `maxParallel` at once, each starting once
 * the calls it waits for have finished (plan-batch.ts), results in the model's order whatever
 * order calls finish in. The batch has a deadline too: a call that has not started by then is
 * answered TOOL_TIMEOUT, and a call still running is answered at the deadline and left behind.
 */
import type { ToolFailure } from "../errors/tool-failure.ts";
import { admit, endUnrun, runCall } from "../pipeline/run-call.ts";
import type { CallInput, CallOutcome, CallState, RequestScope } from "../pipeline/types.ts";
import { planBatch } from "./plan-batch.ts";

export interface BatchOptions {
  maxParallel: number;
  batchTimeoutMs: number;
  /** Calls already refused before the batch (a rate limit), answered with that failure. */
  refusals?: readonly (ToolFailure | undefined)[];
  /** Called once per call with its final outcome and its index (the audit log's one record). */
  onOutcome?: (outcome: CallOutcome, index: number) => void;
}

const NO_DEPENDENCY_RESULTS: ReadonlyMap<string, unknown> = new Map();

/** A dependency's result as its dependents see it: parsed JSON where the result is JSON text. */
function parsedResult(outcome: CallOutcome): unknown {
  if (typeof outcome.value !== "string") return outcome.value;
  try {
    return JSON.parse(outcome.value);
  } catch {
    return outcome.value;
  }
}

/**
 * A batch of one, the common case: it waits for nothing and nothing waits for it, so it needs no
 * plan, queue or bookkeeping arrays (which showed in the single-call profile), only what every
 * call gets: its refusal if it has one, the batch deadline, and `onOutcome`.
 *
 * Its handler already stops at the batch deadline (execute takes the nearer of the two), so it
 * gets no batch timer, which costs real CPU per request in workerd. The trade-off: the stages
 * around the handler (our hooks, the availability check with its own 5 s timeout, storing an
 * oversized result) are bounded only in batches of two or more.
 */
async function runLoneCall(
  call: CallState,
  scope: RequestScope,
  options: BatchOptions,
  batch: { deadlineAt: number; timeoutMs: number },
): Promise<CallOutcome[]> {
  const refusal = options.refusals?.[0];
  let outcome: CallOutcome;
  if (refusal !== undefined) {
    outcome = await endUnrun(call, refusal, scope);
  } else {
    call.run = { dependencyResults: NO_DEPENDENCY_RESULTS, batch, approved: call.run.approved };
    outcome = await runCall(call, scope);
  }
  tellOutcome(options, outcome, 0);
  return [outcome];
}

/** Hands `onOutcome` a settled call; its failure is logged, never the batch's. */
function tellOutcome(options: BatchOptions, outcome: CallOutcome, index: number): void {
  try {
    options.onOutcome?.(outcome, index);
  } catch (error) {
    console.error(`recording the outcome of call ${outcome.callId} failed: ${String(error)}`);
  }
}

/** Admits every call (parse, look up, access) for a batch that has not yet been admitted. */
export function admitAll(calls: readonly CallInput[], scope: RequestScope): CallState[] {
  return calls.map((call) => admit(call, scope));
}

/**
 * Runs every admitted call and resolves with their outcomes in the model's order; never
 * rejects. Each call's run (its dependencies' results, the batch deadline) is set here.
 */
export function runBatch(admitted: readonly CallState[], scope: RequestScope, options: BatchOptions): Promise<CallOutcome[]> {
  const count = admitted.length;
  if (count === 0) return Promise.resolve([]);
  const deadlineAt = Date.now() + options.batchTimeoutMs;
  const batch = { deadlineAt, timeoutMs: options.batchTimeoutMs };
  if (count === 1) return runLoneCall(admitted[0] as CallState, scope, options, batch);
  const plan = planBatch(
    admitted.map((call) => call.input.name),
    (name) => scope.catalog.get(name),
    admitted.map((call) => call.sentArgs),
  );
  const outcomes = new Array<CallOutcome | undefined>(count);
  const started = new Array<boolean>(count).fill(false);
  const pending = plan.waitsFor.map((waits) => waits.length);
  const dependents: number[][] = Array.from({ length: count }, () => []);
  plan.waitsFor.forEach((waits, j) => waits.forEach((i) => dependents[i]?.push(j)));
  const byRank = (a: number, b: number) => (plan.rank[a] ?? 0) - (plan.rank[b] ?? 0);
  const ready = pending.flatMap((n, i) => (n === 0 ? [i] : [])).sort(byRank);
  let running = 0;
  let settledCount = 0;
  let expired = false;

  return new Promise<CallOutcome[]>((resolve) => {
    const timer = setTimeout(onBatchDeadline, options.batchTimeoutMs);

    /** The call with its run: dependency results by call id and by tool name, and the batch deadline. */
    function withRun(i: number): CallState {
      const call = admitted[i] as CallState;
      const dependencyResults = new Map<string, unknown>();
      for (const d of plan.dependsOn[i] ?? []) {
        const outcome = outcomes[d];
        if (outcome === undefined) continue;
        const result = parsedResult(outcome);
        dependencyResults.set(outcome.callId, result);
        dependencyResults.set(outcome.tool, result);
      }
      call.run = { dependencyResults, batch, approved: call.run.approved };
      return call;
    }

    function unrun(i: number, failure: ToolFailure): void {
      void endUnrun(admitted[i] as CallState, failure, scope).then((outcome) => settle(i, outcome));
    }

    function settle(i: number, outcome: CallOutcome): void {
      if (outcomes[i] !== undefined) return;
      outcomes[i] = outcome;
      settledCount += 1;
      tellOutcome(options, outcome, i);
      for (const j of dependents[i] ?? []) {
        pending[j] = (pending[j] ?? 0) - 1;
        if (pending[j] === 0 && !started[j]) {
          ready.push(j);
          ready.sort(byRank);
        }
      }
      if (settledCount === count) {
        clearTimeout(timer);
        resolve(outcomes as CallOutcome[]);
        return;
      }
      pump();
    }

    function start(i: number): void {
      const call = admitted[i] as CallState;
      if (expired) return;
      if (Date.now() >= deadlineAt) {
        // A slot freed at the deadline itself: too late to start.
        onBatchDeadline();
        return;
      }
      started[i] = true;
      const refusal = options.refusals?.[i];
      if (refusal !== undefined) {
        unrun(i, refusal);
        return;
      }
      // Not only failures: a dependency waiting for approval has no result to feed this call.
      const failed = (plan.dependsOn[i] ?? []).find((d) => outcomes[d] !== undefined && outcomes[d]?.status !== "ok");
      if (failed !== undefined) {
        const dependency = outcomes[failed] as CallOutcome;
        unrun(i, {
          kind: "dependency_failed",
          name: call.input.name,
          dependencyCallId: dependency.callId,
          dependencyTool: dependency.tool,
          dependencyCode: dependency.errorCode ?? "EXECUTION_FAILED",
        });
        return;
      }
      running += 1;
      void runCall(withRun(i), scope).then((outcome) => {
        running -= 1;
        settle(i, outcome);
      });
    }

    function pump(): void {
      while (running < options.maxParallel && ready.length > 0) {
        const next = ready.shift();
        if (next !== undefined) start(next);
      }
    }

    function onBatchDeadline(): void {
      if (expired) return;
      expired = true;
      for (let i = 0; i < count; i++) {
        if (outcomes[i] !== undefined) continue;
        const name = (admitted[i] as CallState).input.name;
        // Calls that have not started will not; calls still running are answered now and left.
        const failure = started[i]
          ? { kind: "timeout" as const, name, elapsedMs: options.batchTimeoutMs, timeoutMs: options.batchTimeoutMs, limit: "batch" as const }
          : { kind: "not_started" as const, name, batchTimeoutMs: options.batchTimeoutMs };
        unrun(i, failure);
      }
    }

    pump();
  });
}
