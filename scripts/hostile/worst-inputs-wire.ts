/**
 * What the worst-inputs route (worst-inputs-route.ts, inside workerd) answers and the suite's
 * runner (run-worst-input.ts, in Node) reads: a module without runtime imports, so the runner
 * never loads the registry and the tools behind it.
 */

export const WORST_INPUTS_PATH = "/__hostile/worst-inputs";

/** One tool's inputs, as the suite lists them before asking for each. */
export interface WorstInputsListing {
  tools: { name: string; timeoutMs: number | null; inputs: { name: string; holdsIsolateMs: number | null }[] }[];
  /** Tools outside the suite, with the reason (test fixtures, which no admin can call). */
  skipped: { name: string; reason: string }[];
}

/** One input, built: the setup calls and the hostile call's arguments. */
export interface BuiltWorstInput {
  setup: { tool: string; args: Record<string, unknown> }[];
  args: Record<string, unknown>;
}
