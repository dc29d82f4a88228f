/**
 * What the gateway execution layer costs a single call: POST /v1/tool-calls with one echo call
 * (runBatch, then execute with its breaker, deadline timer and upstream fetch) against
 * CORE_CALL_PATH, the same call through the core pipeline with one plain handler attempt
 * (scripts/bench/core-call.ts). Target (issue): at least 0.9x the core pipeline's requests/s.
 */
import { CORE_CALL_PATH, ECHO_CALL_BODY, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, paired, perRound, type ContenderRounds } from "../rounds.ts";
import type { BenchContext, Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MIN_RATIO = 0.9;

/**
 * Both routes must answer the same result for the same call (bar timing and session), or the
 * comparison would flatter whichever one skipped work.
 */
async function assertSameAnswer(ctx: BenchContext): Promise<void> {
  const comparable = async (path: string) => {
    const { status, body } = await ctx.client.send({ method: "POST", path, body: ECHO_CALL_BODY });
    const parsed = JSON.parse(body) as { results?: Record<string, unknown>[] };
    return { status, results: JSON.stringify(parsed.results?.map(({ duration_ms: _, ...rest }) => rest)) };
  };
  const gateway = await comparable(TOOL_CALLS_PATH);
  const core = await comparable(CORE_CALL_PATH);
  if (gateway.status !== core.status || gateway.results !== core.results) {
    throw new Error(`bench: ${CORE_CALL_PATH} answers differently from ${TOOL_CALLS_PATH}: ${core.status} ${core.results} vs ${gateway.status} ${gateway.results}`);
  }
}

export const gatewayOverhead: Scenario = {
  id: "gateway-overhead",
  title: "POST /v1/tool-calls, one echo call, with the gateway layer vs the core pipeline alone",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    await assertSameAnswer(ctx);
    const [gateway, core] = await alternatingRounds(
      ctx,
      [
        { label: `gateway  POST ${TOOL_CALLS_PATH}`, request: { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY } },
        { label: `core     POST ${CORE_CALL_PATH}`, request: { method: "POST", path: CORE_CALL_PATH, body: ECHO_CALL_BODY } },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    if (gateway === undefined || core === undefined) throw new Error("bench: gateway-overhead lost a contender");
    const ratio = median(paired(gateway.rps, core.rps, (g, c) => g / c));
    const cpuRatio = median(paired(core.serverCpuUs, gateway.serverCpuUs, (c, g) => c / g));
    const row = (figures: ContenderRounds, vsCore: number, cpuVsCore: number) => ({
      label: figures.label,
      values: { rps: median(figures.rps), p50: median(figures.p50Ms), p99: median(figures.p99Ms), vsCore, cpuUs: median(figures.serverCpuUs), cpuVsCore },
      note: `req/s per round ${figures.rps.map((r) => r.toFixed(0)).join(" ")}`,
      perRound: perRound(figures),
    });
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; x core = median of per-round req/s ratios; CPU x core = core CPU/req over this one's (1/x, so both read "higher is faster")`,
      columns: [
        { key: "rps", header: "req/s", digits: 0 },
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "p99", header: "p99 ms", digits: 2 },
        { key: "vsCore", header: "x core", digits: 2 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
        { key: "cpuVsCore", header: "CPU x core", digits: 2 },
      ],
      rows: [row(gateway, ratio, cpuRatio), row(core, 1, 1)],
      checks: [
        {
          label: "single-call throughput, gateway layer vs core pipeline",
          target: `>= ${MIN_RATIO.toFixed(2)}x`,
          actual: `${ratio.toFixed(2)}x`,
          pass: ratio >= MIN_RATIO,
        },
      ],
    };
  },
};
