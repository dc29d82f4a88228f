/**
 * A firing's run, started as the schedule's key with the schedule's prompt, toolsets and model,
 * under the run id the firing stored (schedule-firing.ts): a second start after a restart
 * finds the first run rather than starting another (schedule-object.ts, "Exactly once").
 */
import { startRun } from "../agent/start-run.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import type { ScheduleRecord } from "./schedule-types.ts";

/** Starts the run of `record`'s firing whose run id is `runId`, or says why it cannot start. */
export function startFiringRun(env: Env, record: ScheduleRecord, runId: string): ReturnType<typeof startRun> {
  return startRun(
    env,
    {
      messages: [{ role: "user", content: record.prompt }],
      tools: [],
      // One toolset runs exactly as POST /v1/runs with `toolset`; several as their union, each within the key's own.
      toolset: record.toolsets?.length === 1 ? record.toolsets[0] : undefined,
      ...(record.toolsets === undefined || record.toolsets.length === 1 ? {} : { toolsets: record.toolsets }),
      model: record.model,
      maxTurns: record.maxTurns,
      maxToolCalls: undefined,
      tokenBudget: undefined,
      sessionId: undefined,
    },
    { keyId: record.keyId, origin: undefined, lookup: kvToolsetLookup(env.KV), runId, schedule: { id: record.id } },
  );
}
