/**
 * Turns scenario reports into the printed tables and into .bench/results.json (same figures;
 * NaN, meaning "not applicable", prints as blank and is written as null). A run that stopped
 * early or had a scenario throw is reported all the same, marked, with what did finish.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { BenchSettings, Check, ScenarioReport } from "./scenario.ts";

export interface ScenarioOutcome extends ScenarioReport {
  id: string;
  title: string;
  seconds: number;
}

/** A scenario that threw: its table is missing, the rest of the run is not. */
export interface ScenarioFailure {
  id: string;
  title: string;
  seconds: number;
  /** The error's stack, or its text. */
  error: string;
}

/** Why a run ended before its last scenario, and the scenario it cut short (or would have run next). */
export interface StoppedRun {
  reason: string;
  scenario: string;
}

export interface BenchResults {
  startedAt: string;
  seconds: number;
  /** False when a scenario threw or the run was stopped: the figures below are partial. */
  complete: boolean;
  stopped?: StoppedRun;
  failures: ScenarioFailure[];
  environment: Record<string, string | number>;
  settings: BenchSettings;
  scenarios: ScenarioOutcome[];
}

function pad(text: string, width: number, right: boolean): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** One scenario as an aligned text table, with its method line and its notes. */
export function formatScenario(index: number, outcome: ScenarioOutcome): string {
  const header = ["", ...outcome.columns.map((c) => c.header), ""];
  const cells = outcome.rows.map((row) => [
    row.label,
    ...outcome.columns.map((c) => {
      const value = row.values[c.key];
      return value === undefined || Number.isNaN(value) ? "" : value.toFixed(c.digits);
    }),
    row.note ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const last = header.length - 1;
  const line = (r: string[]) => `  ${r.map((cell, i) => (i === last ? cell : pad(cell, widths[i] ?? 0, i > 0))).join("   ")}`.trimEnd();
  return [`${index}. ${outcome.title}  (${outcome.seconds.toFixed(0)} s)`, `   ${outcome.method}`, line(header), ...cells.map(line)].join("\n");
}

/**
 * Every check of the run as one table: met or not, the measured figure (the median of paired runs
 * where there are several), their spread, and the target. Issue 33: a target is met when its
 * median meets it, and the spread is printed beside it so a reader sees how far one run strayed.
 */
export function formatChecks(outcomes: readonly ScenarioOutcome[]): string {
  const checks: Check[] = outcomes.flatMap((o) => o.checks);
  if (checks.length === 0) return "Targets: none";
  const header = ["", "target", "measured", "spread", "wanted"];
  const cells = checks.map((c) => [c.pass ? "met" : "NOT MET", c.label, c.actual, c.spread ?? "", `${c.guard === true ? "guard " : ""}${c.target}`]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `  ${r.map((cell, i) => pad(cell, widths[i] ?? 0, i === 2)).join("  ")}`.trimEnd();
  const met = checks.filter((c) => c.pass).length;
  return [
    `Targets: ${met} of ${checks.length} met (median of paired runs where there are several; met when the median meets it)`,
    line(header),
    ...cells.map(line),
  ].join("\n");
}

/**
 * The whole printed report: a header line, every finished scenario's table, then what failed
 * or stopped the run, then the targets of the scenarios that finished.
 */
export function formatRun(results: BenchResults, header: string): string {
  const parts = [header, ...results.scenarios.map((outcome, i) => formatScenario(i + 1, outcome))];
  for (const failure of results.failures)
    parts.push(`FAILED  ${failure.id} (${failure.title}) after ${failure.seconds.toFixed(0)} s:\n  ${failure.error.replaceAll("\n", "\n  ")}`);
  if (results.stopped !== undefined)
    parts.push(`INCOMPLETE  ${results.stopped.reason}; stopped at ${results.stopped.scenario}, so it and the scenarios after it have no figures`);
  parts.push(formatChecks(results.scenarios));
  return parts.join("\n\n");
}

/** Writes the results as JSON, creating the folder if needed. */
export function writeResults(path: string, results: BenchResults): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}
