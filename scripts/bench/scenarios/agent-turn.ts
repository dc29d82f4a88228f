/**
 * Agent runs (issue 14): toolgate's CPU per model turn, against one POST /v1/tool-calls of the
 * same call. Non-streaming POST /v1/chat/completions (toolset `core`, the bench's agent key)
 * against the scripted model in the same workerd (scripted-model.ts, no network) makes runs of
 * 1 and of LONG_TURNS turns that each call `echo`, then answer. A run has a fixed cost (a new
 * Durable Object with its SQLite database, which in local workerd is created in this same
 * process, the D1 index row, the chat request) and a cost per turn: the difference between the
 * two runs' workerd CPU, over the turns between them, is the cost of one model turn with one
 * echo call, compared with one echo call through the full app. Target: within 1.5x.
 */
import type { RequestSpec } from "../load.ts";
import { spreadOf, targetCheck } from "../paired-runs.ts";
import { ECHO_CALL_BODY, FULL_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import type { Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_RATIO = 1.5;
/**
 * Turns of the long run. The per-turn figure is the difference of two runs' CPU over the turns
 * between them, so more turns shrink what each run's noise does to it (with 6 it swung from
 * 0.9x to 2x of a tool call between runs on this machine); and a longer transcript makes each
 * later turn's request and storage bigger, so the figure is a fair average, not a flattering one.
 */
const LONG_TURNS = 11;

/** A run whose model calls echo in `turns` turns, then answers (scripts/bench/scripted-model.ts); scripts/bench/profile.ts --chat profiles it too. */
export const chatBody = (turns: number): string =>
  JSON.stringify({ model: "default", toolset: "core", max_turns: turns + 1, messages: [{ role: "user", content: `echo ${turns}` }] });

export const agentTurn: Scenario = {
  id: "agent-turn",
  title: `An agent run's CPU per model turn with one echo call (POST /v1/chat/completions, 1 vs ${LONG_TURNS} echo turns) vs one POST /v1/tool-calls echo call`,
  async run(ctx) {
    const { rounds, roundMs, warmupMs } = ctx.settings;
    const headers = { [PIPELINE_HEADER]: FULL_PIPELINE, authorization: `Bearer ${ctx.agentKey}`, "content-type": "application/json" };
    const chat = (turns: number): RequestSpec => ({ method: "POST", path: "/v1/chat/completions", body: chatBody(turns), headers });
    const echo: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers };
    for (const turns of [1, LONG_TURNS]) {
      const probe = await ctx.client.send(chat(turns));
      const answer =
        probe.status === 200 ? (JSON.parse(probe.body) as { choices?: { message?: { content?: string } }[]; toolgate?: { steps?: unknown[] } }) : undefined;
      if (answer?.choices?.[0]?.message?.content !== "done" || answer.toolgate?.steps?.length !== turns + 1)
        throw new Error(`bench: agent-turn answered ${probe.status}: ${probe.body.slice(0, 500)}`);
    }
    const [short, long, call] = await alternatingRounds(
      ctx,
      [
        { label: "run: 1 echo turn + answer", request: chat(1) },
        { label: `run: ${LONG_TURNS} echo turns + answer`, request: chat(LONG_TURNS) },
        { label: "POST /v1/tool-calls, one echo", request: echo },
      ],
      { concurrency: 4, rounds, roundMs, warmupMs },
    );
    if (short === undefined || long === undefined || call === undefined) throw new Error("bench: agent-turn lost a contender");
    const callCpu = median(call.serverCpuUs);
    const perTurn = (median(long.serverCpuUs) - median(short.serverCpuUs)) / (LONG_TURNS - 1);
    const fixed = median(short.serverCpuUs) - perTurn * 2;
    // Issue 33: the target's figure is per round (that round's turn over that round's call), median with spread.
    const roundRatios = spreadOf(
      long.serverCpuUs.map((l, i) => (l - (short.serverCpuUs[i] ?? Number.NaN)) / (LONG_TURNS - 1) / (call.serverCpuUs[i] ?? Number.NaN)),
    );
    const ratio = roundRatios.median;
    const row = (figures: typeof call, values: Record<string, number>) => ({
      label: figures.label,
      values: { p50: median(figures.p50Ms), rps: median(figures.rps), cpuUs: median(figures.serverCpuUs), ...values },
      perRound: perRound(figures),
    });
    return {
      method: `4 in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; workerd CPU per request (the run's Durable Object, its storage, D1, events and audit included; the scripted model too, a stub that takes each request's whole body as text, counts its tool messages without parsing it and answers one of four prebuilt OpenAI responses); per turn = (CPU of the ${LONG_TURNS}-turn run - CPU of the 1-turn run) / ${LONG_TURNS - 1}; fixed = the rest of a run (its object created, the chat request, the answer turn)`,
      columns: [
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "rps", header: "req/s", digits: 0 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
        { key: "vsCall", header: "x tool-call", digits: 2 },
      ],
      rows: [
        row(short, { vsCall: median(short.serverCpuUs) / callCpu }),
        row(long, { vsCall: median(long.serverCpuUs) / callCpu }),
        { label: "  => per echo turn", values: { p50: 0, rps: 0, cpuUs: perTurn, vsCall: ratio }, note: `fixed cost per run about ${Math.round(fixed)} us` },
        row(call, { vsCall: 1 }),
      ],
      checks: [targetCheck("toolgate CPU per model turn (one echo call) vs one tool call", roundRatios, { at: "most", value: MAX_RATIO, unit: "x" })],
    };
  },
};
