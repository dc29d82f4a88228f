/**
 * How often a tool's availability is answered from the check cache (src/registry/
 * availability.ts) rather than by running its check: `bench_checked` has a check, and every
 * listing of all tools (tools-listing.ts's rounds) and every call of it asks. This scenario adds
 * a round of each through the full app, then reads `availability.stats()` from the Worker's
 * isolate: for the whole run so far, and for this scenario's rounds alone. With a 30 s TTL the
 * check should run about once per 30 s, whatever the load, so the target (ours; the issue
 * names none) is a hit rate of at least 0.99 over the run.
 */
import { CHECKED_TOOL, CHECKED_TOOLSET } from "../checked-tool.ts";
import type { LoadClient, RequestSpec } from "../load.ts";
import { AVAILABILITY_STATS_PATH, TOOL_CALLS_PATH, TOOLS_PATH, toolCallsBody } from "../requests.ts";
import type { Row, Scenario } from "../scenario.ts";

const MIN_HIT_RATE = 0.99;
const ROUND_MS = 1_000;

interface Stats {
  memoryHits: number;
  kvHits: number;
  probes: number;
}

async function readStats(client: LoadClient): Promise<Stats> {
  const { status, body } = await client.send({ method: "GET", path: AVAILABILITY_STATS_PATH });
  if (status !== 200) throw new Error(`bench: ${AVAILABILITY_STATS_PATH} answered ${status}: ${body.slice(0, 300)}`);
  return JSON.parse(body) as Stats;
}

function statsRow(label: string, { memoryHits, kvHits, probes }: Stats, note: string): Row {
  const lookups = memoryHits + kvHits + probes;
  return { label, values: { lookups, memoryHits, kvHits, probes, hitRate: (memoryHits + kvHits) / lookups }, note };
}

export const availabilityCache: Scenario = {
  id: "availability-cache",
  title: `Availability check cache: ${CHECKED_TOOL} (has a check) listed and called through the full app`,
  async run(ctx) {
    const requests: RequestSpec[] = [
      { method: "POST", path: TOOL_CALLS_PATH, body: toolCallsBody(CHECKED_TOOL, { text: "hi" }) },
      { method: "GET", path: `${TOOLS_PATH}?toolset=${CHECKED_TOOLSET}` },
    ];
    const before = await readStats(ctx.client);
    let sent = 0;
    for (const request of requests) {
      const result = await ctx.client.round(request, { concurrency: ctx.settings.concurrency, durationMs: ROUND_MS });
      sent += result.requests;
    }
    const after = await readStats(ctx.client);
    const delta: Stats = { memoryHits: after.memoryHits - before.memoryHits, kvHits: after.kvHits - before.kvHits, probes: after.probes - before.probes };
    const run = statsRow("whole run so far", after, "listings of all tools in tools-listing, plus the rounds below");
    const rows = [run, statsRow("this scenario's rounds", delta, `${sent} requests: ${ROUND_MS / 1000} s of calls, ${ROUND_MS / 1000} s of toolset listings`)];
    const hitRate = run.values.hitRate ?? Number.NaN;
    return {
      method: `availability.stats() of the Worker's isolate (${AVAILABILITY_STATS_PATH}); hit rate = (memory + KV hits) / lookups that needed a check`,
      columns: [
        { key: "lookups", header: "lookups", digits: 0 },
        { key: "memoryHits", header: "memory hits", digits: 0 },
        { key: "kvHits", header: "KV hits", digits: 0 },
        { key: "probes", header: "checks run", digits: 0 },
        { key: "hitRate", header: "hit rate", digits: 4 },
      ],
      rows,
      checks: [
        {
          label: "availability check-cache hit rate over the run",
          target: `>= ${MIN_HIT_RATE}`,
          actual: hitRate.toFixed(4),
          pass: hitRate >= MIN_HIT_RATE,
        },
      ],
    };
  },
};
