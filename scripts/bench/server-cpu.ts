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

/** The PID of this process's child named `comm` (Miniflare starts workerd as a direct child). */
export function findChildProcess(comm: string): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statFields(Number(entry));
    if (stat?.comm === comm && Number(stat.fields[1]) === process.pid) return Number(entry);
  }
  return undefined;
}

/** User + system CPU milliseconds `pid` has used so far; NaN when unknown. */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const stat = statFields(pid);
  if (stat === undefined) return Number.NaN;
  // Clock ticks; USER_HZ is 100 on every mainstream Linux build.
  return (Number(stat.fields[11]) + Number(stat.fields[12])) * 10;
}
