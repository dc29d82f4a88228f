/**
 * Where the full app's extra cost per call goes: the full app (agent key) against itself less
 * its audit stage, less its rate limits, its serving path (audit records to a queue no consumer
 * reads) with and without its per-call log line and span (the audit stage hands every record to
 * src/tracing/observe-calls.ts; "less audit" keeps those, its records built for them and none
 * sent, and "records built" drops them), and against the gateway app (no
 * auth, no policy) and
 * the core pipeline, all on POST /v1/tool-calls with one echo call, in alternating rounds.
 * Miniflare runs the queue broker, its consumer, D1 and the RateLimiter object in the same
 * workerd process, so "workerd CPU us/req" includes their share. No target of its own: it
 * explains full-overhead's figure, so it takes two short rounds, not five of 1 s (eight arms
 * are the bench's longest alternation, and its audited arms wait for D1 after each round).
 */
import type { RequestSpec } from "../load.ts";
import {
  CORE_PIPELINE,
  ECHO_CALL_BODY,
  FULL_BUILD_AUDIT_PIPELINE,
  FULL_NO_AUDIT_PIPELINE,
  FULL_NO_LIMITS_PIPELINE,
  FULL_NO_TELEMETRY_PIPELINE,
  FULL_PIPELINE,
  FULL_SERVING_PIPELINE,
  GATEWAY_PIPELINE,
  PIPELINE_HEADER,
  TOOL_CALLS_PATH,
} from "../requests.ts";
import { alternatingRounds, perRound, versusValues } from "../rounds.ts";
import { diagnosticRoundMs, type Scenario, versusColumns } from "../scenario.ts";

const MAX_ROUNDS = 2;

export const fullBreakdown: Scenario = {
  id: "full-breakdown",
  title: "POST /v1/tool-calls, one echo call: the full app (agent key) less one stage at a time",
  async run(ctx) {
    const { concurrency, warmupMs } = ctx.settings;
    const rounds = Math.min(MAX_ROUNDS, ctx.settings.rounds);
    const roundMs = diagnosticRoundMs(ctx.settings);
    const call = (pipeline: string, authorization = `Bearer ${ctx.agentKey}`): RequestSpec => ({
      method: "POST",
      path: TOOL_CALLS_PATH,
      body: ECHO_CALL_BODY,
      headers: { [PIPELINE_HEADER]: pipeline, authorization },
    });
    const contenders = [
      { label: "full", request: call(FULL_PIPELINE), audited: true },
      { label: "full less audit", request: call(FULL_NO_AUDIT_PIPELINE) },
      { label: "full less audit and telemetry (records built, none sent)", request: call(FULL_BUILD_AUDIT_PIPELINE) },
      { label: "full less rate limits", request: call(FULL_NO_LIMITS_PIPELINE), audited: true },
      // Serving paths (records to a queue no consumer reads), so no wait for D1 after their rounds.
      { label: "full, serving path (no consumer)", request: call(FULL_SERVING_PIPELINE) },
      { label: "full, serving path less per-call log lines and spans", request: call(FULL_NO_TELEMETRY_PIPELINE) },
      { label: "gateway (no auth, policy, limits, audit)", request: call(GATEWAY_PIPELINE) },
      { label: "core", request: call(CORE_PIPELINE) },
    ];
    const figures = await alternatingRounds(ctx, contenders, { concurrency, rounds, roundMs, warmupMs });
    const core = figures.at(-1);
    if (core === undefined) throw new Error("bench: full-breakdown lost the core contender");
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up, each round settled (its trailing CPU counted in it), then collected uncounted (scripts/bench/rounds.ts); x core = median of per-round req/s ratios; CPU x core = core CPU/req over this one's`,
      columns: versusColumns("core"),
      rows: figures.map((f) => ({
        label: f.label,
        values: versusValues(f, core, "core"),
        note: `req/s per round ${f.rps.map((r) => r.toFixed(0)).join(" ")}`,
        perRound: perRound(f),
      })),
      checks: [],
    };
  },
};
