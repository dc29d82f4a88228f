/**
 * What the gateway execution layer costs a single call: POST /v1/tool-calls with one echo call
 * (runBatch, then execute with its breaker, deadline timer and upstream fetch) against the same
 * route of the bench Worker's core app, which runs the call through the core pipeline with one
 * plain handler attempt (scripts/bench/core-run-calls.ts). Both go through the same route,
 * validation and body limit, and both skip auth, rate limits and audit, so only the gateway
 * layer differs. Target (issue 12, raised from issue 3's 0.9x): at least 0.95x the core
 * pipeline, read since issue 33 as workerd CPU per request (core's over the gateway's), the
 * median of the paired rounds; req/s stays in the table.
 */
import type { RequestSpec } from "../load.ts";
import { targetCheck } from "../paired-runs.ts";
import { CORE_PIPELINE, ECHO_CALL_BODY, GATEWAY_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, versusRows } from "../rounds.ts";
import { type BenchContext, type Scenario, versusColumns } from "../scenario.ts";

const MIN_RATIO = 0.95;

const GATEWAY_CALL: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers: { [PIPELINE_HEADER]: GATEWAY_PIPELINE } };
const CORE_CALL: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers: { [PIPELINE_HEADER]: CORE_PIPELINE } };

/**
 * Both apps must answer 200 and the same results for the same call (bar timing), or the
 * comparison would flatter whichever one skipped work.
 */
async function assertSameAnswer(ctx: BenchContext): Promise<void> {
  const comparable = async (request: RequestSpec) => {
    const { status, body } = await ctx.client.send(request);
    const parsed = JSON.parse(body) as { results?: Record<string, unknown>[] };
    return { status, results: JSON.stringify(parsed.results?.map(({ duration_ms: _, ...rest }) => rest)) };
  };
  const gateway = await comparable(GATEWAY_CALL);
  const core = await comparable(CORE_CALL);
  if (gateway.status !== 200 || gateway.status !== core.status || gateway.results !== core.results) {
    throw new Error(
      `bench: the core pipeline answers ${TOOL_CALLS_PATH} differently from the gateway: ${core.status} ${core.results} vs ${gateway.status} ${gateway.results}`,
    );
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
        { label: `gateway  POST ${TOOL_CALLS_PATH}`, request: GATEWAY_CALL },
        { label: `core     POST ${TOOL_CALLS_PATH}`, request: CORE_CALL },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    if (gateway === undefined || core === undefined) throw new Error("bench: gateway-overhead lost a contender");
    const { cpuRatio, rows } = versusRows(gateway, core, "core");
    return {
      method: `same route, ${PIPELINE_HEADER} picks the app; ${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; x core = median of per-round req/s ratios; CPU x core = median of per-round core CPU/req over this one's (1/x, so both read "higher is faster"), the target's figure`,
      columns: versusColumns("core"),
      rows,
      checks: [targetCheck("single call, workerd CPU, gateway layer vs core pipeline", cpuRatio, { at: "least", value: MIN_RATIO, unit: "x" })],
    };
  },
};
