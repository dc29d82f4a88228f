/**
 * Runs scenarios one after another and keeps whatever finished, whatever else happens: a
 * scenario that throws is recorded and the next one runs; a stop (the watchdog, Ctrl-C) ends
 * the run at once, naming the scenario it cut short. Nothing here throws, so the caller can
 * always print and write what was measured.
 */
import type { ScenarioFailure, ScenarioOutcome, StoppedRun } from "./report.ts";
import type { BenchContext, Scenario } from "./scenario.ts";

export interface ScenariosRun {
  outcomes: ScenarioOutcome[];
  failures: ScenarioFailure[];
  /** Set when `signal` stopped the run before every scenario had run. */
  stopped?: StoppedRun;
}

/** The message of whatever was thrown or given as an abort reason. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts. The work
 * itself cannot be cancelled; it is left to fail on its own once its client is closed.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Runs `scenarios` in order against `ctx`, each timed, until they are done or `signal` aborts.
 *
 * @example
 * const watchdog = AbortSignal.timeout(240_000);
 * const { outcomes, failures, stopped } = await runScenarios(SCENARIOS, ctx, watchdog, console.error);
 */
export async function runScenarios(
  scenarios: readonly Scenario[],
  ctx: BenchContext,
  signal: AbortSignal,
  progress: (message: string) => void = () => undefined,
): Promise<ScenariosRun> {
  const run: ScenariosRun = { outcomes: [], failures: [] };
  for (const scenario of scenarios) {
    if (signal.aborted) {
      run.stopped = { reason: describeError(signal.reason), scenario: scenario.id };
      break;
    }
    progress(`${scenario.id}…`);
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    try {
      const report = await untilAborted(scenario.run(ctx), signal);
      run.outcomes.push({ id: scenario.id, title: scenario.title, seconds: seconds(), ...report });
      progress(`${scenario.id} done in ${seconds().toFixed(1)} s`);
    } catch (error) {
      if (signal.aborted) {
        run.stopped = { reason: describeError(signal.reason), scenario: scenario.id };
        break;
      }
      progress(`${scenario.id} failed after ${seconds().toFixed(1)} s: ${describeError(error)}`);
      run.failures.push({
        id: scenario.id,
        title: scenario.title,
        seconds: seconds(),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
  }
  return run;
}
