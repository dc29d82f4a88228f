/**
 * execute_code's cost (issue 13): POST /v1/tool-calls with one trivial execute_code call, on the
 * full app with the bench's agent key, against one plain echo call on the same app. The first
 * call of the isolate is timed on its own (it instantiates the QuickJS module), then both are
 * measured warm in alternating rounds. Target: a warm trivial script within 3x an echo call's
 * latency.
 */
import type { RequestSpec } from "../load.ts";
import { pairedSpread, targetCheck } from "../paired-runs.ts";
import { ECHO_CALL_BODY, FULL_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH, toolCallsBody } from "../requests.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import type { BenchContext, Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_RATIO = 3;
const TRIVIAL_SCRIPT_BODY = toolCallsBody("execute_code", { code: "return 1 + 1;" });

function request(ctx: BenchContext, body: string): RequestSpec {
  return { method: "POST", path: TOOL_CALLS_PATH, body, headers: { [PIPELINE_HEADER]: FULL_PIPELINE, authorization: `Bearer ${ctx.agentKey}` } };
}

/** Sends one request and returns its latency, failing unless its one call answered ok. */
async function timedOnce(ctx: BenchContext, spec: RequestSpec): Promise<number> {
  const started = performance.now();
  const { status, body } = await ctx.client.send(spec);
  const elapsed = performance.now() - started;
  const results = status === 200 ? (JSON.parse(body) as { results?: { status?: string }[] }).results : undefined;
  if (results?.[0]?.status !== "ok") throw new Error(`bench: execute-code answered ${status}: ${body.slice(0, 500)}`);
  return elapsed;
}

export const executeCode: Scenario = {
  id: "execute-code",
  title: "POST /v1/tool-calls, one trivial execute_code call (QuickJS) vs one echo call, full app, agent key",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const script = request(ctx, TRIVIAL_SCRIPT_BODY);
    const echo = request(ctx, ECHO_CALL_BODY);
    // Runs before any other execute_code call of this isolate (scenarios run in one Worker).
    const firstMs = await timedOnce(ctx, script);
    const secondMs = await timedOnce(ctx, script);
    const [warm, plain] = await alternatingRounds(
      ctx,
      [
        { label: "execute_code, warm", request: script },
        { label: "echo", request: echo },
      ],
      { concurrency: 1, rounds, roundMs, warmupMs },
    );
    if (warm === undefined || plain === undefined) throw new Error("bench: execute-code lost a contender");
    // A latency target (a script the model waits for), so p50s, not CPU: the median of the paired rounds' ratios.
    const ratios = pairedSpread(warm.p50Ms, plain.p50Ms, (w, e) => w / e);
    const ratio = ratios.median;
    const row = (figures: typeof warm, vsEcho: number) => ({
      label: figures.label,
      values: { p50: median(figures.p50Ms), p99: median(figures.p99Ms), rps: median(figures.rps), vsEcho, cpuUs: median(figures.serverCpuUs) },
      perRound: perRound(figures),
    });
    return {
      method: `first call timed alone (QuickJS instantiated on it), then 1 in flight (not ${concurrency}: latency, not throughput, is the target), ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; x echo = median over rounds of p50 over echo's p50 in the same round`,
      columns: [
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "p99", header: "p99 ms", digits: 2 },
        { key: "rps", header: "req/s", digits: 0 },
        { key: "vsEcho", header: "x echo", digits: 2 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
      ],
      rows: [
        {
          label: "execute_code, first call of the isolate",
          values: { p50: firstMs, p99: firstMs, rps: 0, vsEcho: firstMs / median(plain.p50Ms), cpuUs: 0 },
          note: `second call ${secondMs.toFixed(2)} ms`,
        },
        row(warm, ratio),
        row(plain, 1),
      ],
      checks: [targetCheck("warm trivial execute_code latency (p50) vs echo", ratios, { at: "most", value: MAX_RATIO, unit: "x" })],
    };
  },
};
