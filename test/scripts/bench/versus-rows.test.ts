/**
 * scripts/bench/rounds.ts versusRows with scenario.ts versusColumns: the two-contender table of
 * gateway-overhead and mcp-oauth, whose rows must fill every column the reference names.
 */
import { describe, expect, it } from "vitest";
import { type ContenderRounds, versusRows } from "../../../scripts/bench/rounds.ts";
import { versusColumns } from "../../../scripts/bench/scenario.ts";

const figures = (label: string, rps: number[], serverCpuUs: number[]): ContenderRounds => ({
  label,
  rps,
  p50Ms: rps.map(() => 1),
  p99Ms: rps.map(() => 2),
  serverCpuUs,
  bodyBytes: 10,
  sent: 1,
  auditRowsPerCall: [],
  trailingCpuUs: [],
  collectionCpuUs: [],
});

describe("versusRows", () => {
  it("fills every column of versusColumns with paired per-round ratios, the reference's being 1", () => {
    const oauth = figures("oauth", [90, 100, 80], [110, 100, 125]);
    const key = figures("key", [100, 100, 100], [100, 100, 100]);
    const { ratio, cpuRatio, rows } = versusRows(oauth, key, "key");
    expect(ratio).toBeCloseTo(0.9);
    // The target's figure: the key's CPU over the token's, round by round, with its spread.
    expect(cpuRatio).toMatchObject({ min: 0.8, max: 1, runs: 3 });
    expect(cpuRatio.median).toBeCloseTo(100 / 110);
    const columns = versusColumns("key").map((column) => column.key);
    expect(columns).toEqual(["rps", "p50", "p99", "vsKey", "cpuUs", "cpuVsKey"]);
    for (const row of rows) expect(Object.keys(row.values).sort()).toEqual([...columns].sort());
    expect(rows[0]?.values).toMatchObject({ rps: 90, vsKey: ratio, cpuUs: 110 });
    expect(rows[0]?.values.cpuVsKey).toBeCloseTo(100 / 110);
    expect(rows[1]).toMatchObject({ label: "key", values: { vsKey: 1, cpuVsKey: 1 } });
  });

  it("keeps the core and bare columns the older scenarios print", () => {
    expect(versusColumns("core").map((column) => column.key)).toEqual(["rps", "p50", "p99", "vsCore", "cpuUs", "cpuVsCore"]);
    expect(versusColumns("bare").map((column) => column.key)).toEqual(["rps", "p50", "p99", "vsBare", "cpuUs"]);
  });
});
