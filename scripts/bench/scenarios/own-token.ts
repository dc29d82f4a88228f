/**
 * Issue 30's point: looking up the caller's own token at a `per_user` server adds at most 20 µs
 * of Worker CPU per call. Three requests to one bench route (own-token-routes.ts), sent one at a
 * time and measured as workerd's CPU per request: no lookup (the twin), the D1 read alone, a
 * lookup that misses the isolate's cache (read, AES-GCM open, header), and the lookup calls make,
 * served from the per-isolate cache of opened grants (connection-cache.ts: 10 s, never past the
 * token's expiry). The difference of the last from the twin, paired round by round, is what a call adds.
 *
 * Local D1 runs inside the same workerd process, so its SQLite work is in these figures; on
 * Cloudflare it runs elsewhere and a Worker pays only the binding's call and the row's decoding.
 * The figures are therefore an upper bound of the Worker's own CPU.
 */
import { cpuPerRequest } from "../cpu-per-request.ts";
import { OWN_TOKEN_PATH } from "../requests.ts";
import { settleCpu } from "../rounds.ts";
import type { Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_ADDED_US = 20;

export const ownToken: Scenario = {
  id: "own-token",
  title: "A per_user call's own-token lookup (per-isolate cache; a miss reads D1 and opens AES-GCM), workerd CPU per call",
  async run(ctx) {
    const count = ctx.quick ? 100 : 1000;
    const rounds = Math.max(3, ctx.settings.rounds);
    type Step = "none" | "read" | "uncached" | "lookup";
    const cpu: Record<Step, number[]> = { none: [], read: [], uncached: [], lookup: [] };
    for (let round = 0; round < rounds; round++) {
      const measure = async (step: Step) =>
        cpu[step].push((await cpuPerRequest(ctx, { method: "GET", path: `${OWN_TOKEN_PATH}?step=${step}` }, count, "own-token")).cpuUs);
      // The D1 and AES-GCM steps first, then a settle, then the twin and the cached lookup back to
      // back, in turn first: the target is their per-round difference, and a step right after the
      // uncached one inherited its garbage and D1 tail (a full run once read 51 us, 13 alone).
      await measure("read");
      await measure("uncached");
      // What the uncached step leaves behind is its own: charged to it, not dropped.
      const trailingMs = await settleCpu(ctx.serverPid);
      cpu.uncached[round] = (cpu.uncached[round] ?? 0) + (trailingMs * 1000) / count;
      for (const step of round % 2 === 0 ? (["none", "lookup"] as const) : (["lookup", "none"] as const)) await measure(step);
    }
    const overTwin = (step: Step) => cpu[step].map((us, i) => us - (cpu.none[i] ?? Number.NaN));
    const perRound = overTwin("lookup");
    const added = median(perRound);
    const row = (label: string, values: number[], note?: string) => ({
      label,
      values: { value: median(values), spread: Math.max(...values) - Math.min(...values) },
      ...(note === undefined ? {} : { note }),
    });
    return {
      method: `${rounds} rounds of ${count} sequential GETs per step, workerd process CPU per request (local D1 included), medians; the target is the median of per-round differences, the twin and the lookup measured back to back in alternating order, after the other steps and a settle`,
      columns: [
        { key: "value", header: "CPU us", digits: 1 },
        { key: "spread", header: "min-max", digits: 1 },
      ],
      rows: [
        row("no lookup (twin)", cpu.none),
        row("D1 read of the connection row", cpu.read, `+${median(overTwin("read")).toFixed(1)} us over the twin (median of per-round differences)`),
        row(
          "lookup missing the cache: read, open, header (its trailing CPU included)",
          cpu.uncached,
          `+${median(overTwin("uncached")).toFixed(1)} us over the twin (median of per-round differences)`,
        ),
        row(
          "lookup as calls make it (per-isolate cache, 10 s)",
          cpu.lookup,
          `+${added.toFixed(1)} us over the twin (median of per-round differences: ${perRound.map((d) => d.toFixed(1)).join(", ")})`,
        ),
      ],
      checks: [
        { label: "own-token lookup, added CPU per call", target: `<= ${MAX_ADDED_US} us`, actual: `${added.toFixed(1)} us`, pass: added <= MAX_ADDED_US },
      ],
    };
  },
};
