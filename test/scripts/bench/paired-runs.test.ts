/**
 * scripts/bench/paired-runs.ts: N paired runs to a median with its spread, and the check a
 * target makes of it (met when the median meets it), as report.ts prints them in its table.
 */
import { describe, expect, it } from "vitest";
import { formatSpread, pairedSpread, spreadOf, targetCheck } from "../../../scripts/bench/paired-runs.ts";
import { formatChecks, type ScenarioOutcome } from "../../../scripts/bench/report.ts";

describe("spreadOf", () => {
  it("gives the median of an odd count and the range of the runs", () => {
    expect(spreadOf([0.9, 0.7, 1.1, 0.8, 0.95])).toEqual({ median: 0.9, min: 0.7, max: 1.1, runs: 5 });
  });

  it("gives the mean of the two middle runs for an even count", () => {
    expect(spreadOf([4, 1, 3, 2]).median).toBe(2.5);
  });

  it("leaves out runs without a figure (NaN where /proc is missing)", () => {
    expect(spreadOf([Number.NaN, 2, 6])).toEqual({ median: 4, min: 2, max: 6, runs: 2 });
  });

  it("says no run gave a figure rather than inventing one", () => {
    const none = spreadOf([Number.NaN]);
    expect(none.runs).toBe(0);
    expect(none.median).toBeNaN();
    expect(formatSpread(none, "x")).toBe("no run");
  });
});

describe("formatSpread", () => {
  it("keeps a negative range readable", () => {
    expect(formatSpread(spreadOf([-3, 12.5]), "us")).toBe("-3.0 to 12.5 over 2 runs");
    expect(formatSpread(spreadOf([0.9]), "x")).toBe("0.90-0.90 over 1 run");
  });
});

describe("pairedSpread", () => {
  it("pairs run i with run i, so one slow moment on both arms cancels out", () => {
    // Run 2 is slow for both arms alike: the per-run ratio stays 0.8 while the medians of each
    // arm alone would give 100/125.
    const bare = [100, 100, 200, 100, 100];
    const core = [125, 125, 250, 125, 125];
    expect(pairedSpread(bare, core, (b, c) => b / c)).toEqual({ median: 0.8, min: 0.8, max: 0.8, runs: 5 });
  });

  it("ignores a run the other arm lacks", () => {
    expect(pairedSpread([10, 20, 30], [10, 10], (a, b) => a / b)).toEqual({ median: 1.5, min: 1, max: 2, runs: 2 });
  });
});

describe("targetCheck", () => {
  it("is met when the median meets an at-least target, whatever one run said", () => {
    const check = targetCheck("core vs bare", spreadOf([0.78, 0.81, 0.83, 0.85, 0.9]), { at: "least", value: 0.8, unit: "x" });
    expect(check).toEqual({ label: "core vs bare", target: ">= 0.80x", actual: "0.83x", spread: "0.78-0.90 over 5 runs", pass: true });
  });

  it("is not met when the median misses an at-most target, even if one run met it", () => {
    const check = targetCheck("audit per call", spreadOf([35, 41, 44]), { at: "most", value: 40, unit: "us" });
    expect(check).toMatchObject({ target: "<= 40.0 us", actual: "41.0 us", spread: "35.0-44.0 over 3 runs", pass: false });
  });

  it("is never met without a run, and marks a guard", () => {
    const check = targetCheck("start-up guard", spreadOf([]), { at: "most", value: 2.5, unit: "x" }, true);
    expect(check).toMatchObject({ actual: "unknown", pass: false, guard: true });
  });
});

describe("formatChecks", () => {
  it("prints every target as a row: met or not, the median, its spread, the target", () => {
    const outcome: ScenarioOutcome = {
      id: "s",
      title: "s",
      seconds: 1,
      method: "",
      columns: [],
      rows: [],
      checks: [
        targetCheck("core vs bare", spreadOf([0.7, 0.75, 0.9]), { at: "least", value: 0.8, unit: "x" }),
        { label: "upload gzip", target: "<= 1024 KiB", actual: "868.6 KiB", pass: true },
      ],
    };
    const lines = formatChecks([outcome]).split("\n");
    expect(lines[0]).toBe("Targets: 1 of 2 met (median of paired runs where there are several; met when the median meets it)");
    expect(lines[2]).toMatch(/^ {2}NOT MET +core vs bare +0\.75x +0\.70-0\.90 over 3 runs +>= 0\.80x$/);
    expect(lines[3]).toMatch(/^ {2}met +upload gzip +868\.6 KiB +<= 1024 KiB$/);
  });
});
