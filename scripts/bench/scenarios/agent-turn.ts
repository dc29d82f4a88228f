/**
 * Agent runs (issue 14): toolgate's CPU per model turn, against one POST /v1/tool-calls of the
 * same call. A non-streaming POST /v1/chat/completions (toolset `core`, the bench's agent key)
 * makes a run of two turns, one calling `echo` and one answering, against the scripted model in
 * the same workerd (scripted-model.ts, no network); its workerd CPU per request, halved, is the
 * cost per turn, compared with one echo call through the full app. Target: within 1.5x.
 */
import type { RequestSpec } from "../load.ts";
import { ECHO_CALL_BODY, FULL_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import type { Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_RATIO = 1.5;
const TURNS = 2;
const CHAT_BODY = JSON.stringify({ model: "default", toolset: "core", messages: [{ role: "user", content: "echo hi" }] });

export const agentTurn: Scenario = {
  id: "agent-turn",
  title: "An agent run's CPU per model turn (POST /v1/chat/completions, echo then answer) vs one POST /v1/tool-calls echo call",
  async run(ctx) {
    const { rounds, roundMs, warmupMs } = ctx.settings;
    const headers = { [PIPELINE_HEADER]: FULL_PIPELINE, authorization: `Bearer ${ctx.agentKey}` };
    const chat: RequestSpec = { method: "POST", path: "/v1/chat/completions", body: CHAT_BODY, headers: { ...headers, "content-type": "application/json" } };
    const echo: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers };
    const probe = await ctx.client.send(chat);
    const answer = probe.status === 200 ? (JSON.parse(probe.body) as { choices?: { message?: { content?: string } }[]; toolgate?: { steps?: unknown[] } }) : undefined;
    if (answer?.choices?.[0]?.message?.content !== "done" || answer.toolgate?.steps?.length !== TURNS) throw new Error(`bench: agent-turn answered ${probe.status}: ${probe.body.slice(0, 500)}`);
    const [run, call] = await alternatingRounds(
      ctx,
      [
        { label: "chat completion: run of 2 turns", request: chat },
        { label: "POST /v1/tool-calls, one echo", request: echo },
      ],
      { concurrency: 4, rounds, roundMs, warmupMs },
    );
    if (run === undefined || call === undefined) throw new Error("bench: agent-turn lost a contender");
    const runCpu = median(run.serverCpuUs);
    const callCpu = median(call.serverCpuUs);
    const perTurn = runCpu / TURNS;
    const ratio = perTurn / callCpu;
    return {
      method: `4 in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; workerd CPU per request (the run's Durable Object, D1 index, events and audit included, the scripted model's JSON too); per turn = the run's CPU / ${TURNS}`,
      columns: [
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "rps", header: "req/s", digits: 0 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
        { key: "perTurn", header: "CPU us/turn", digits: 0 },
        { key: "vsCall", header: "x tool-call", digits: 2 },
      ],
      rows: [
        { label: run.label, values: { p50: median(run.p50Ms), rps: median(run.rps), cpuUs: runCpu, perTurn, vsCall: ratio }, perRound: perRound(run) },
        { label: call.label, values: { p50: median(call.p50Ms), rps: median(call.rps), cpuUs: callCpu, perTurn: callCpu, vsCall: 1 }, perRound: perRound(call) },
      ],
      checks: [{ label: "toolgate CPU per model turn vs one tool call", target: `<= ${MAX_RATIO}x`, actual: `${ratio.toFixed(2)}x`, pass: ratio <= MAX_RATIO }],
    };
  },
};
