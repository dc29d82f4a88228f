/**
 * CPU time used by the workerd process, read from /proc (Linux only; elsewhere it reads as
 * unknown). On a shared 2-core machine, throughput moves with whatever else runs, but CPU per
 * request is the server's own cost, so it is the steadier figure to compare routes by.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Fields of /proc/<pid>/stat after the `(comm)` field: state is index 0, utime 11, stime 12. */
function statFields(pid: number): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), fields: stat.slice(close + 2).split(" ") };
  } catch {
    return undefined;
  }
}

/** The PIDs of this process's children named `comm` (Miniflare starts workerd as a direct child). */
export function childProcesses(comm: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries
    .filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      const stat = statFields(Number(entry));
      return stat?.comm === comm && Number(stat.fields[1]) === process.pid;
    })
    .map(Number);
}

/** The PID of this process's child named `comm`, the first found. */
export function findChildProcess(comm: string): number | undefined {
  return childProcesses(comm)[0];
}

/**
 * CPU milliseconds all of `pid`'s threads have run, from the scheduler's own nanosecond account
 * (/proc/<pid>/task/<tid>/schedstat): exact where /proc/<pid>/stat counts 10 ms ticks, and, unlike
 * a profiler's sampled time, not inflated when another process takes the core. NaN when unknown.
 */
export function threadsCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // A thread that ended between the listing and the read ran no more.
      }
    }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU milliseconds `pid` has used so far, the figure every "workerd CPU per request" is made of:
 * the scheduler's exact account of its threads (threadsCpuMs), or, where that is missing, user +
 * system time from /proc/<pid>/stat, whose 10 ms ticks were 5 us a record on audit-cost's 2,000
 * records and 10 us a call on own-token's 1,000 (issue 33: the instrument must resolve a 40 us or
 * 20 us target). workerd under Miniflare runs two long-lived threads, so no thread's time leaves
 * the sum between two readings. NaN when unknown.
 */
export function cpuMs(pid: number | undefined): number {
  const exact = threadsCpuMs(pid);
  return Number.isNaN(exact) ? tickCpuMs(pid) : exact;
}

/** User + system CPU milliseconds from /proc/<pid>/stat, in 10 ms ticks; NaN when unknown. */
function tickCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const stat = statFields(pid);
  if (stat === undefined) return Number.NaN;
  // Clock ticks; USER_HZ is 100 on every mainstream Linux build.
  return (Number(stat.fields[11]) + Number(stat.fields[12])) * 10;
}
