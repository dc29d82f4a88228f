/**
 * What a fresh Run object instance does with calls its predecessor left in flight (run-object.ts,
 * "Exactly once"): a call stored as in flight may have had its effect before the instance died,
 * so it is never run again; the model gets a `run_interrupted` error for it instead.
 */
import { outcomeOfFailure } from "../pipeline/outcome.ts";
import type { RunHost } from "./run-host.ts";
import type { Message, RunEvent, RunRecord } from "./run-types.ts";

/** Calls a dead predecessor left in flight: each gets run_interrupted, none runs again. */
export function recoverInflight(host: RunHost, record: RunRecord): RunRecord {
  const held = record.inflight.map((call) => ({
    callId: call.id,
    content: outcomeOfFailure(call.tool, call.id, { kind: "run_interrupted", name: call.tool, runId: record.id }, {}).content,
  }));
  host.events.emitAll(
    record.inflight.map(
      (call): Pick<RunEvent, "type" | "data"> => ({
        type: "tool.result",
        data: { id: call.id, tool: call.tool, status: "error", error_code: "EXECUTION_FAILED", duration_ms: 0, interrupted: true },
      }),
    ),
  );
  const recovered: RunRecord = { ...record, inflight: [], held, pending: [] };
  host.store.appendMessages(held.map((h): Message => ({ role: "tool", tool_call_id: h.callId, content: h.content })));
  const next = { ...recovered, held: [] };
  host.store.save(next);
  return next;
}
