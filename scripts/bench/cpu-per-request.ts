/**
 * workerd CPU per request for requests sent one after another: the process's CPU from /proc
 * around `count` sends, divided by them, after one untimed send whose answer is returned. For
 * scenarios whose requests are heavy enough (a page fetched, a spec listed) that one at a time
 * is the honest measure and per-request CPU is the figure a target names.
 */
import type { RequestSpec } from "./load.ts";
import type { BenchContext } from "./scenario.ts";
import { cpuMs } from "./server-cpu.ts";
import { median } from "./stats.ts";

export async function cpuPerRequest(
  ctx: BenchContext,
  request: RequestSpec,
  count: number,
  scenario: string,
): Promise<{ cpuUs: number; p50Ms: number; first: string }> {
  const first = await ctx.client.send(request);
  if (first.status !== 200) throw new Error(`bench: ${scenario}: ${request.path} answered ${first.status}: ${first.body.slice(0, 300)}`);
  const latencies: number[] = [];
  const before = cpuMs(ctx.serverPid);
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const { status } = await ctx.client.send(request);
    latencies.push(performance.now() - t0);
    if (status !== 200) throw new Error(`bench: ${scenario}: ${request.path} answered ${status}`);
  }
  return { cpuUs: ((cpuMs(ctx.serverPid) - before) * 1000) / count, p50Ms: median(latencies), first: first.body };
}
