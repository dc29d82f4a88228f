/**
 * Every tool's declared worst inputs (issue 27), as the hostile suite sends them
 * (scripts/hostile/run-worst-input.ts): each call's duration against its deadline, and how long
 * GET /health, probed every 100 ms meanwhile, had to wait (p99 and max). A table of the stalls a
 * hostile caller could cause, so a regression shows as a number; the hostile suite itself holds
 * each run to its bound. `--quick` runs one input of two tools, to prove the scenario works.
 */
import { DEADLINE_SLACK_MS, listWorstInputs, runWorstInput, warmUp } from "../../hostile/run-worst-input.ts";
import type { Row, Scenario } from "../scenario.ts";

/** The bench Worker's DEFAULT_TIMEOUT_MS: wrangler.toml sets none, so config-schema.ts's default. */
const DEFAULT_TIMEOUT_MS = 30_000;
const QUICK_TOOLS = new Set(["echo", "patch"]);

export const worstInputs: Scenario = {
  id: "worst-inputs",
  title: "Each tool's worst inputs through POST /v1/tool-calls, with GET /health probed every 100 ms",
  async run(ctx) {
    const target = { origin: ctx.origin, token: ctx.adminToken, defaultTimeoutMs: DEFAULT_TIMEOUT_MS };
    await warmUp(target);
    const listing = await listWorstInputs(ctx.origin);
    const rows: Row[] = [];
    let withinBounds = 0;
    let runs = 0;
    for (const tool of listing.tools) {
      if (ctx.quick && !QUICK_TOOLS.has(tool.name)) continue;
      const count = ctx.quick ? Math.min(1, tool.inputs.length) : tool.inputs.length;
      for (let index = 0; index < count; index++) {
        const run = await runWorstInput(target, tool, index);
        runs += 1;
        const held = run.durationMs <= run.deadlineMs + DEADLINE_SLACK_MS && run.probeMaxMs <= run.probeBoundMs;
        if (held) withinBounds += 1;
        rows.push({
          label: `${run.tool}: ${run.input}`,
          values: {
            durationMs: run.durationMs,
            deadlineS: run.deadlineMs / 1000,
            probeP99: run.probeP99Ms,
            probeMax: run.probeMaxMs,
            boundMs: run.probeBoundMs,
          },
          note: `${run.status}${run.errorCode === null ? "" : ` ${run.errorCode}`}${held ? "" : "  OVER BOUND"}`,
        });
      }
    }
    return {
      method: "one run per input after a warm-up, admin token, body limit raised to 32 MiB so inputs at the tools' caps reach them",
      columns: [
        { key: "durationMs", header: "call ms", digits: 0 },
        { key: "deadlineS", header: "deadline s", digits: 0 },
        { key: "probeP99", header: "probe p99 ms", digits: 0 },
        { key: "probeMax", header: "probe max ms", digits: 0 },
        { key: "boundMs", header: "bound ms", digits: 0 },
      ],
      rows,
      checks: [
        {
          label: "worst inputs ending within deadline + 1 s with every probe within its bound",
          target: `${runs} of ${runs}`,
          actual: `${withinBounds} of ${runs}`,
          pass: withinBounds === runs,
        },
      ],
    };
  },
};
