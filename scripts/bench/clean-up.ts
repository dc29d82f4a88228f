/**
 * The bench's cleanup: closing the load clients, disposing Miniflare. Each step runs whatever
 * the one before did, with a time limit, and a failure is returned as a line to print, never
 * thrown: cleanup runs after the report and must neither hide it nor change the exit code
 * (issue 16's run lost its whole report to ClientDestroyedError from a close).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describeError } from "./run-scenarios.ts";

export interface CleanUpStep {
  label: string;
  run(): Promise<void> | void;
}

/** Long enough for Miniflare to stop workerd and delete its temp dir on a loaded machine. */
const STEP_TIMEOUT_MS = 15_000;

/**
 * Runs every step in order; returns one line per step that threw or overran `timeoutMs`.
 *
 * @example
 * for (const problem of await cleanUp([{ label: "close client", run: () => client.close() }])) console.error(problem);
 */
export async function cleanUp(steps: readonly CleanUpStep[], timeoutMs = STEP_TIMEOUT_MS): Promise<string[]> {
  const problems: string[] = [];
  for (const step of steps) {
    try {
      const overran = await Promise.race([Promise.resolve(step.run()).then(() => false), sleep(timeoutMs, true, { ref: false })]);
      if (overran) problems.push(`${step.label}: still running after ${timeoutMs / 1000} s; left behind`);
    } catch (error) {
      problems.push(`${step.label}: ${describeError(error)}`);
    }
  }
  return problems;
}
