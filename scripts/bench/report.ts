/**
 * Turns scenario reports into the printed tables and into .bench/results.json (same figures;
 * NaN, meaning "not applicable", prints as blank and is written as null).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { BenchSettings, Check, ScenarioReport } from "./scenario.ts";

export interface ScenarioOutcome extends ScenarioReport {
  id: string;
  title: string;
  seconds: number;
}

export interface BenchResults {
  startedAt: string;
  seconds: number;
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

/** Every check of the run, one per line, PASS or FAIL first. */
export function formatChecks(outcomes: readonly ScenarioOutcome[]): string {
  const checks: Check[] = outcomes.flatMap((o) => o.checks);
  if (checks.length === 0) return "Targets: none";
  const width = Math.max(...checks.map((c) => c.label.length));
  return ["Targets", ...checks.map((c) => `  ${c.pass ? "PASS" : "FAIL"}  ${c.label.padEnd(width)}  ${c.actual.padStart(8)}  (target ${c.target})`)].join("\n");
}

/** Writes the results as JSON, creating the folder if needed. */
export function writeResults(path: string, results: BenchResults): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}
