/**
 * What workerd itself charges a request for the two things every toolgate request does and a bare
 * route need not: writing a console line (toolgate writes one per request, and one per call) and
 * waiting one timer turn. Measured on requests that do nothing else (runtime-costs-route.ts: read
 * and parse the body, answer), in alternating rounds, as differences of workerd CPU per request
 * round by round. No target: it says how much of a ratio against a peer that logs nothing is the
 * log line, and what a timer on a request's path costs (src/execution/attempt-once.ts avoids one).
 */
import type { RequestSpec } from "../load.ts";
import { formatSpread, paired, spreadOf } from "../paired-runs.ts";
import { ECHO_CALL_BODY } from "../requests.ts";
import { alternatingRounds, type ContenderRounds, perRound } from "../rounds.ts";
import { RUNTIME_COSTS_PATH, type RuntimeCostMode } from "../runtime-costs-route.ts";
import type { Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const request = (mode: RuntimeCostMode): RequestSpec => ({
  method: "POST",
  path: `${RUNTIME_COSTS_PATH}?mode=${mode}`,
  body: ECHO_CALL_BODY,
  headers: { "content-type": "application/json" },
});

export const runtimeCosts: Scenario = {
  id: "runtime-costs",
  title: "What workerd charges a request for a console line and for a timer turn, on requests that do nothing else",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const [plain, oneLine, twoLines, timer] = await alternatingRounds(
      ctx,
      [
        { label: "plain: read and parse the body, answer", request: request("plain") },
        { label: "the same and one console line", request: request("one-line") },
        { label: "the same and two console lines", request: request("two-lines") },
        { label: "plain, then one setTimeout(0) turn", request: request("timer") },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    if (plain === undefined || oneLine === undefined || twoLines === undefined || timer === undefined) throw new Error("bench: runtime-costs lost a contender");
    const arm = (figures: ContenderRounds) => ({
      label: figures.label,
      values: { cpuUs: median(figures.serverCpuUs) },
      note: `CPU us/req per round ${figures.serverCpuUs.map((us) => us.toFixed(0)).join(" ")}`,
      perRound: perRound(figures),
    });
    const difference = (label: string, more: ContenderRounds, less: ContenderRounds) => {
      const perRoundUs = paired(more.serverCpuUs, less.serverCpuUs, (m, l) => m - l);
      const spread = spreadOf(perRoundUs);
      return {
        label,
        values: { cpuUs: spread.median },
        note: formatSpread(spread, "us"),
        perRound: { cpuUs: perRoundUs },
      };
    };
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up, each round settled, then collected uncounted (scripts/bench/rounds.ts); requests answered by the bench Worker before any app (no router, middleware or request line); a line is shaped like toolgate's request line (${RUNTIME_COSTS_PATH}); a difference is the median of per-round differences of workerd CPU per request, with its spread; workerd writes its console output to a file, as in every scenario`,
      columns: [{ key: "cpuUs", header: "workerd CPU us/req", digits: 1 }],
      rows: [
        arm(plain),
        arm(oneLine),
        arm(twoLines),
        arm(timer),
        difference("a request's first console line (one line - plain)", oneLine, plain),
        difference("its second console line (two lines - one line)", twoLines, oneLine),
        difference("one timer turn (timer - plain)", timer, plain),
      ],
      checks: [],
    };
  },
};
