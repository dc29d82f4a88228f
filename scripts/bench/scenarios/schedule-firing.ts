/**
 * Scheduled runs (issue 34): one schedule firing against one POST /v1/runs of the same prompt.
 * Target: a firing costs at most 2x. A firing is an alarm, so each side is one bench-only
 * request that starts a run and returns when it has ended (scripts/bench/schedule-bench.ts): the
 * schedule's alarm run at once, or POST /v1/runs through the full app. Both runs have the same
 * prompt ("echo 1": one echo turn, then the answer, from the in-isolate scripted model), key
 * (the bench's agent key) and toolset (`core`). What a firing adds: the schedule's record and
 * firing log read and written around the start, the key checked in D1, the index row, and the
 * Run object's report of its end to the schedule.
 */
import type { RequestSpec } from "../load.ts";
import { pairedSpread, targetCheck } from "../paired-runs.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import type { Scenario } from "../scenario.ts";
import { RUN_WAIT_PATH, scheduleFirePath } from "../schedule-bench-paths.ts";
import { median } from "../stats.ts";

const MAX_RATIO = 2;
const PROMPT = "echo 1";

export const scheduleFiring: Scenario = {
  id: "schedule-firing",
  title: "A schedule firing (alarm, run, end reported) vs one POST /v1/runs of the same prompt, each until its run ends",
  async run(ctx) {
    const { rounds, roundMs, warmupMs } = ctx.settings;
    const headers = { authorization: `Bearer ${ctx.agentKey}`, "content-type": "application/json" };
    const created = await ctx.client.send({
      method: "POST",
      path: "/v1/schedules",
      body: JSON.stringify({ name: "bench", prompt: PROMPT, every_seconds: 86_400, toolsets: ["core"] }),
      headers,
    });
    if (created.status !== 201) throw new Error(`bench: schedule-firing could not create its schedule: ${created.status} ${created.body.slice(0, 500)}`);
    const { id } = JSON.parse(created.body) as { id: string };
    const fire: RequestSpec = { method: "POST", path: scheduleFirePath(id), headers };
    const run: RequestSpec = { method: "POST", path: RUN_WAIT_PATH, body: JSON.stringify({ input: PROMPT, toolset: "core" }), headers };
    // One at a time: a schedule's next firing waits for its last run (overlap), and so do the runs, for the same shape.
    const [fired, direct] = await alternatingRounds(
      ctx,
      [
        { label: "schedule firing, until its run ends", request: fire },
        { label: "POST /v1/runs, until its run ends", request: run },
      ],
      { concurrency: 1, rounds, roundMs, warmupMs },
    );
    await ctx.client.send({ method: "DELETE", path: `/v1/schedules/${id}`, headers });
    if (fired === undefined || direct === undefined) throw new Error("bench: schedule-firing lost a contender");
    // Issue 33: the median of the per-round ratios, each firing beside the run measured next to it.
    const ratios = pairedSpread(fired.serverCpuUs, direct.serverCpuUs, (f, d) => f / d);
    const ratio = ratios.median;
    const row = (figures: typeof fired, vsRun: number) => ({
      label: figures.label,
      values: { p50: median(figures.p50Ms), rps: median(figures.rps), cpuUs: median(figures.serverCpuUs), vsRun },
      perRound: perRound(figures),
    });
    return {
      method: `1 in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; workerd CPU per request, each request one run from start to end (its Durable Objects, storage, D1, audit and the scripted model included)`,
      columns: [
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "rps", header: "req/s", digits: 0 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
        { key: "vsRun", header: "x POST /v1/runs", digits: 2 },
      ],
      rows: [row(fired, ratio), row(direct, 1)],
      checks: [targetCheck("CPU of a schedule firing vs one POST /v1/runs", ratios, { at: "most", value: MAX_RATIO, unit: "x" })],
    };
  },
};
