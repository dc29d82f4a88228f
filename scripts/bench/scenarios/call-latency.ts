/**
 * Issue 33's latency report (no target): what one call through the full app adds to a request's
 * latency at 8 and at 64 requests in flight, p50 and p99, against the bare route that reads and
 * JSON.parses the same body and answers the same bytes. The full app is its serving path
 * (FULL_SERVING_PIPELINE: agent key, policy, rate limits, audit records sent to a queue no
 * consumer reads), since in production the audit consumer runs as its own invocation and does
 * not queue behind calls. Both arms take the same pipeline header, so they pay the same routing.
 *
 * Each level is its own set of alternating rounds; "added" is the median over rounds of the
 * full app's percentile less the bare route's in the same round.
 */
import { LoadClient, type RequestSpec } from "../load.ts";
import { formatFigure, formatSpread, pairedSpread } from "../paired-runs.ts";
import { BARE_CALL_PATH, ECHO_CALL_BODY, FULL_SERVING_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, type ContenderRounds, perRound } from "../rounds.ts";
import { diagnosticRoundMs, type Row, type Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

/** The two loads the issue names: the bench's usual 8 in flight, and a burst of 64. */
const IN_FLIGHT = [8, 64] as const;
/** No target rides on these, so three short rounds per level keep the full bench within its time. */
const MAX_ROUNDS = 3;

export const callLatency: Scenario = {
  id: "call-latency",
  title: "Latency one call adds at 8 and 64 in flight, p50 and p99: full app's serving path vs the body-reading bare route (report, no target)",
  async run(ctx) {
    const rounds = Math.min(MAX_ROUNDS, ctx.settings.rounds);
    const roundMs = diagnosticRoundMs(ctx.settings);
    const headers = { [PIPELINE_HEADER]: FULL_SERVING_PIPELINE, authorization: `Bearer ${ctx.agentKey}` };
    const full: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers };
    const bare: RequestSpec = { method: "POST", path: BARE_CALL_PATH, body: ECHO_CALL_BODY, headers };
    // The context's client holds the bench's usual 8 connections; 64 in flight needs its own pool.
    const client = new LoadClient(new URL(ctx.origin), Math.max(...IN_FLIGHT));
    const rows: Row[] = [];
    try {
      for (const concurrency of IN_FLIGHT) {
        const [call, reference] = await alternatingRounds(
          ctx,
          [
            { label: `${concurrency} in flight: full app, POST ${TOOL_CALLS_PATH}`, request: full, client },
            { label: `${concurrency} in flight: bare, POST ${BARE_CALL_PATH}`, request: bare, client },
          ],
          { concurrency, rounds, roundMs, warmupMs: ctx.settings.warmupMs },
        );
        if (call === undefined || reference === undefined) throw new Error("bench: call-latency lost a contender");
        const addedP50 = pairedSpread(call.p50Ms, reference.p50Ms, (c, b) => c - b);
        const addedP99 = pairedSpread(call.p99Ms, reference.p99Ms, (c, b) => c - b);
        rows.push(row(call, addedP50.median, addedP99.median, `added p50 ${formatSpread(addedP50, "ms")}; p99 ${formatSpread(addedP99, "ms")}`));
        rows.push(row(reference, Number.NaN, Number.NaN, `median p99 ${formatFigure(median(reference.p99Ms), "ms")}`));
      }
    } finally {
      await client.close();
    }
    return {
      method: `${IN_FLIGHT.join(" and ")} in flight, each ${rounds} alternating rounds of ${roundMs / 1000} s after a ${ctx.settings.warmupMs / 1000} s warm-up; agent key; added = median over rounds of (full app's percentile - bare route's), spread in the note; the full app's audit goes to a queue no consumer reads`,
      columns: [
        { key: "rps", header: "req/s", digits: 0 },
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "p99", header: "p99 ms", digits: 2 },
        { key: "addedP50", header: "added p50 ms", digits: 2 },
        { key: "addedP99", header: "added p99 ms", digits: 2 },
        { key: "cpuUs", header: "workerd CPU us/req", digits: 0 },
      ],
      rows,
      checks: [],
    };
  },
};

function row(figures: ContenderRounds, addedP50: number, addedP99: number, note: string): Row {
  return {
    label: figures.label,
    values: { rps: median(figures.rps), p50: median(figures.p50Ms), p99: median(figures.p99Ms), addedP50, addedP99, cpuUs: median(figures.serverCpuUs) },
    note,
    perRound: perRound(figures),
  };
}
