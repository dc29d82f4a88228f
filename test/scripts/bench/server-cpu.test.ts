/**
 * scripts/bench/server-cpu.ts cpuMs, which every "workerd CPU per request" is made of: it must
 * resolve well below /proc/<pid>/stat's 10 ms ticks, or a 20-40 us target per call is below the
 * instrument's step. Read on this process (Linux only; elsewhere the figure is unknown).
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuMs } from "../../../scripts/bench/server-cpu.ts";

/** Spins until this process has used `ms` more CPU by its own account (not wall time, which a busy machine stretches). */
function spin(ms: number): void {
  const start = process.cpuUsage();
  let used = 0;
  while (used < ms) {
    const { user, system } = process.cpuUsage(start);
    used = (user + system) / 1000;
  }
}

describe.skipIf(!existsSync(`/proc/${process.pid}/task`))("cpuMs", () => {
  it("counts a few milliseconds of work as a few milliseconds, not as 0 or 10 ticks' worth", () => {
    const before = cpuMs(process.pid);
    spin(4);
    const used = cpuMs(process.pid) - before;
    // The spin's own 4 ms, plus whatever this process's other threads (GC, libuv) ran meanwhile.
    expect(used).toBeGreaterThanOrEqual(3.5);
    expect(used).toBeLessThan(9.5);
  });

  it("is unknown for a process that is not there", () => {
    expect(cpuMs(undefined)).toBeNaN();
    expect(cpuMs(2 ** 22 + 1)).toBeNaN();
  });
});
