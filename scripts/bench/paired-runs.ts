/**
 * Issue 33's rule for every figure a target rides on: N paired runs (run i of one arm measured
 * beside run i of the other, so a busy moment of the shared machine falls on both), the median
 * of the per-run figures, printed with its spread (min-max over the runs). A target is met when
 * the median meets it; the spread says how far one run could have said otherwise.
 */
import type { Check } from "./scenario.ts";
import { median } from "./stats.ts";

/** The median of some runs' figures and their range; NaN runs (no /proc, say) are left out. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many runs gave a figure. */
  runs: number;
}

/** Round-by-round `f(a[i], b[i])`, for paired comparisons such as CPU ratios. */
export function paired(a: readonly number[], b: readonly number[], f: (x: number, y: number) => number): number[] {
  return a.map((x, i) => f(x, b[i] ?? Number.NaN));
}

/** The median and range of `values`, leaving NaN out; every field NaN (and runs 0) when none is known. */
export function spreadOf(values: readonly number[]): Spread {
  const known = values.filter((v) => !Number.isNaN(v));
  if (known.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, runs: 0 };
  return { median: median(known), min: Math.min(...known), max: Math.max(...known), runs: known.length };
}

/**
 * N paired runs to the median of `f` over the pairs, with its spread.
 *
 * @example
 * // core's CPU per request over bare's, run by run: higher means core is the cheaper one
 * const ratio = pairedSpread(bare.serverCpuUs, core.serverCpuUs, (b, c) => b / c);
 */
export function pairedSpread(a: readonly number[], b: readonly number[], f: (x: number, y: number) => number): Spread {
  return spreadOf(paired(a, b, f));
}

/** What a figure is held to: at least or at most `value`, in `unit` (a ratio "x", or CPU in "us"/"ms"). */
export interface Target {
  at: "least" | "most";
  value: number;
  unit: "x" | "us" | "ms";
}

const DIGITS: Record<Target["unit"], number> = { x: 2, us: 1, ms: 1 };

/** `value` in `unit`: "0.93x", "38.2 us". */
export function formatFigure(value: number, unit: Target["unit"]): string {
  const digits = value.toFixed(DIGITS[unit]);
  return unit === "x" ? `${digits}x` : `${digits} ${unit}`;
}

/** "0.81-0.97 over 5 runs" ("-3.0 to 12.5 ..." when the range has a minus sign), or "no run" when none gave a figure. */
export function formatSpread(spread: Spread, unit: Target["unit"]): string {
  if (spread.runs === 0) return "no run";
  const digits = DIGITS[unit];
  const between = spread.min < 0 ? " to " : "-";
  return `${spread.min.toFixed(digits)}${between}${spread.max.toFixed(digits)} over ${spread.runs} run${spread.runs === 1 ? "" : "s"}`;
}

/**
 * The check of `measured` against `target`: met when its median is, never when no run gave a
 * figure. `guard` marks a regression guard (scenario.ts Check), which fails the run when missed.
 */
export function targetCheck(label: string, measured: Spread, target: Target, guard = false): Check {
  const met = measured.runs > 0 && (target.at === "least" ? measured.median >= target.value : measured.median <= target.value);
  return {
    label,
    target: `${target.at === "least" ? ">=" : "<="} ${formatFigure(target.value, target.unit)}`,
    actual: measured.runs === 0 ? "unknown" : formatFigure(measured.median, target.unit),
    spread: formatSpread(measured, target.unit),
    pass: met,
    ...(guard ? { guard: true } : {}),
  };
}
