/**
 * The second estimate of GET /v1/tools' server time: the same functions the route calls,
 * timed in this Node process (the same V8 as workerd) over many iterations. Node's clock,
 * unlike workerd's, advances during pure computation.
 */
// The src modules imported below name the Worker's `Env` type.
/// <reference path="../../../worker-configuration.d.ts" />
import type { Scenario } from "../scenario.ts";
import { median, percentile } from "../stats.ts";
import { BENCH_TOOLSET, registerSyntheticTools, SYNTHETIC_TOOL_COUNT } from "../synthetic-tools.ts";

const MAX_SERVER_MS = 2;
const WARMUP_ITERATIONS = 100;
const MAX_ITERATIONS = 3_000;
/** Time budget of the warm-up and, separately, of the timed iterations (less in --quick). */
const MAX_MS = 3_000;

export const definitionsInProcess: Scenario = {
  id: "definitions-in-process",
  title: `GET /v1/tools' work for ${SYNTHETIC_TOOL_COUNT} tools, in-process in Node`,
  async run(ctx) {
    const maxMs = Math.min(MAX_MS, 2 * ctx.settings.roundMs);
    // Imported here, not at the top, so only this scenario puts tools in Node's registry.
    const { registry } = await import("../../../src/registry/registry.ts");
    const { availableEntries } = await import("../../../src/registry/definitions.ts");
    const { definitionsJson } = await import("../../../src/formats/definitions-json.ts");
    if (registry.namesInToolset(BENCH_TOOLSET).length === 0) registerSyntheticTools(registry);
    const names = registry.namesInToolset(BENCH_TOOLSET);
    // Synthetic tools have no requiresEnv and no check, so no binding is ever read.
    const env = {} as Env;

    const buildUs: number[] = [];
    const stringifyUs: number[] = [];
    let bodyChars = 0;
    let started = performance.now();
    for (let i = 0; i < WARMUP_ITERATIONS + MAX_ITERATIONS && performance.now() - started < maxMs; i++) {
      if (i === WARMUP_ITERATIONS) started = performance.now();
      // The route's two steps: pick the available entries, then assemble the body from each
      // tool's cached JSON (formats/definitions-json.ts).
      const t0 = performance.now();
      const entries = await availableEntries(names, env);
      const t1 = performance.now();
      bodyChars = `{"format":"openai","toolset":"${BENCH_TOOLSET}","tools":${definitionsJson(entries, "openai", env)}}`.length;
      const t2 = performance.now();
      if (i < WARMUP_ITERATIONS) continue;
      buildUs.push((t1 - t0) * 1000);
      stringifyUs.push((t2 - t1) * 1000);
    }
    const totalUs = buildUs.map((b, i) => b + (stringifyUs[i] ?? Number.NaN));
    const totalMs = median(totalUs) / 1000;
    const row = (label: string, samples: number[]) => ({
      label,
      values: { p50: median(samples), p99: percentile(samples, 99), iterations: samples.length },
    });
    return {
      method: `${WARMUP_ITERATIONS} warm-up iterations, then up to ${MAX_ITERATIONS} timed ones within ${maxMs / 1000} s; openai format; ${(bodyChars / 1024).toFixed(1)} KiB of JSON`,
      columns: [
        { key: "p50", header: "median us", digits: 0 },
        { key: "p99", header: "p99 us", digits: 0 },
        { key: "iterations", header: "iterations", digits: 0 },
      ],
      rows: [
        row("availableEntries (lookup, availability, sort)", buildUs),
        row("definitionsJson + body assembly", stringifyUs),
        row("total (what the route computes)", totalUs),
      ],
      checks: [
        {
          label: `${SYNTHETIC_TOOL_COUNT}-tool listing server time (in-process estimate)`,
          target: `< ${MAX_SERVER_MS} ms`,
          actual: `${totalMs.toFixed(2)} ms`,
          pass: totalMs < MAX_SERVER_MS,
        },
      ],
    };
  },
};
