/**
 * Throughput of one trivial call through the core pipeline (the bench Worker's core app: the
 * route, validation and dispatch, with no auth lookup, rate limits, audit or gateway layer),
 * against the ceiling: a bare route in the same app that reads and JSON.parses the same request
 * bytes and answers the same response bytes. Target (issue 33, from issue 12's 0.7x against a
 * bare route that never read its body): at least 0.8x the bare route, in workerd CPU per request
 * (bare's over core's), the median of the paired rounds, with its spread. Req/s stays in the
 * table: on the shared machine it moves with whatever else runs.
 */
import type { RequestSpec } from "../load.ts";
import { paired, pairedSpread, targetCheck } from "../paired-runs.ts";
import { BARE_CALL_PATH, CORE_PIPELINE, ECHO_CALL_BODY, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import { type Scenario, versusColumns } from "../scenario.ts";
import { median } from "../stats.ts";

const MIN_RATIO = 0.8;
const CORE = { [PIPELINE_HEADER]: CORE_PIPELINE };
const PIPELINE_CALL: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers: CORE };
const BARE_CALL: RequestSpec = { method: "POST", path: BARE_CALL_PATH, body: ECHO_CALL_BODY, headers: CORE };

export const callThroughput: Scenario = {
  id: "call-throughput",
  title: "POST /v1/tool-calls, one echo call, core pipeline vs a bare route answering the same bytes",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const [pipeline, bare] = await alternatingRounds(
      ctx,
      [
        { label: `core  POST ${TOOL_CALLS_PATH}`, request: PIPELINE_CALL },
        { label: `bare  POST ${BARE_CALL_PATH}`, request: BARE_CALL },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    if (pipeline === undefined || bare === undefined) throw new Error("bench: call-throughput lost a contender");
    const ratio = median(paired(pipeline.rps, bare.rps, (p, b) => p / b));
    const cpuRatio = pairedSpread(bare.serverCpuUs, pipeline.serverCpuUs, (b, p) => b / p);
    const row = (figures: typeof pipeline, vsBare: number, cpuVsBare: number) => ({
      label: figures.label,
      values: { rps: median(figures.rps), p50: median(figures.p50Ms), p99: median(figures.p99Ms), vsBare, cpuUs: median(figures.serverCpuUs), cpuVsBare },
      note: `${figures.bodyBytes} B answer; req/s per round ${figures.rps.map((r) => r.toFixed(0)).join(" ")}`,
      perRound: perRound(figures),
    });
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; medians over rounds; x bare is the median of per-round req/s ratios; CPU x bare = median of per-round bare CPU/req over core's (1/x, so both read "higher is faster"), the target's figure: CPU per request is steadier than req/s when other processes compete`,
      // The bare route reads and parses the body, so its CPU is a reference worth a ratio here.
      columns: [...versusColumns("bare"), { key: "cpuVsBare", header: "CPU x bare", digits: 2 }],
      rows: [row(pipeline, ratio, cpuRatio.median), row(bare, 1, 1)],
      checks: [targetCheck("single call, workerd CPU, core pipeline vs the body-reading bare route", cpuRatio, { at: "least", value: MIN_RATIO, unit: "x" })],
    };
  },
};
