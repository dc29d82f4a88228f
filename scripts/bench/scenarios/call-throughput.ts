/**
 * Throughput of one trivial call through the core pipeline (the bench Worker's core app: the
 * route, validation and dispatch, with no auth lookup, rate limits, audit or gateway layer),
 * against the ceiling: a bare route in the same app that reads and JSON.parses the same request
 * bytes and answers the same response bytes. Target (issue 33, from issue 12's 0.7x against a
 * bare route that never read its body): at least 0.8x the bare route's req/s.
 */
import type { RequestSpec } from "../load.ts";
import { BARE_CALL_PATH, CORE_PIPELINE, ECHO_CALL_BODY, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, paired, perRound } from "../rounds.ts";
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
    const row = (figures: typeof pipeline, vsBare: number) => ({
      label: figures.label,
      values: { rps: median(figures.rps), p50: median(figures.p50Ms), p99: median(figures.p99Ms), vsBare, cpuUs: median(figures.serverCpuUs) },
      note: `${figures.bodyBytes} B answer; req/s per round ${figures.rps.map((r) => r.toFixed(0)).join(" ")}`,
      perRound: perRound(figures),
    });
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; medians over rounds; x bare is the median of per-round ratios; CPU per request is steadier than req/s when other processes compete`,
      columns: versusColumns("bare"),
      rows: [row(pipeline, ratio), row(bare, 1)],
      checks: [
        {
          label: "core pipeline throughput vs bare route",
          target: `>= ${MIN_RATIO.toFixed(2)}x`,
          actual: `${ratio.toFixed(2)}x`,
          pass: ratio >= MIN_RATIO,
        },
      ],
    };
  },
};
