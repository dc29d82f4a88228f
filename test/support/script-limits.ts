/**
 * Limits for running a script on a QuickJS instance directly (tools/lib/run-script.ts), for the
 * tests of the sandbox's host side, which drive it without the execute_code tool around it.
 */
import { WASM_MEMORY_BYTES } from "../../tools/lib/quickjs.ts";
import type { ScriptLimits, ScriptToolCall } from "../../tools/lib/script-types.ts";

/** Fuel units per ms, as execute_code converts them. */
const FUEL_PER_MS = 200_000;

/** A run's limits with a slice of `sliceMs` of fuel, a 10 ms yield point and a 10 s budget. */
export function scriptLimits(sliceMs: number): ScriptLimits {
  return {
    timeoutMs: 10_000,
    memoryBytes: WASM_MEMORY_BYTES,
    stackBytes: 128 * 1024,
    maxToolCalls: 1,
    maxLogChars: 1_000,
    fuel: { slice: sliceMs * FUEL_PER_MS, total: 10_000 * FUEL_PER_MS },
    yieldFuel: 10 * FUEL_PER_MS,
    sliceMs,
  };
}

/** The tool capability of a script that has none. */
export const noTools: ScriptToolCall = (name) => Promise.reject(new Error(`tools.${name}: no tools in this test`));
