/**
 * Stage 9, execute: the handler under the call's deadline (the nearer of its own and the
 * batch's), its retry policy and its breaker, all below in execution/.
 */
import type { RequestScope, CallOutcome, CallState } from "../types.ts";
import { failedOutcome, succeededOutcome } from "../outcome.ts";
import { entryOf } from "./entry-of.ts";

const NO_DEPENDENCIES: ReadonlyMap<string, unknown> = new Map();

export async function execute(call: CallState, scope: RequestScope): Promise<CallOutcome> {
  const entry = entryOf(call);
  const { config } = scope;
  const timeoutMs = entry.timeoutMs ?? config.defaultTimeoutMs;
  const callDeadline = call.startedAt + timeoutMs;
  const batch = call.run.batch;
  const batchDeadline = batch?.deadlineAt ?? Number.POSITIVE_INFINITY;
  const execution = await scope.parts.execute(
    entry,
    call.args,
    {
      callId: call.input.id,
      sessionId: scope.sessionId,
      keyId: scope.keyId,
      toolName: entry.name,
      env: scope.env,
      dependencyResults: call.run.dependencyResults ?? NO_DEPENDENCIES,
      waitUntil: scope.waitUntil,
      client: scope.client,
      mayUse: (tool) => mayUse(tool, scope),
      format: call.input.format ?? "openai",
    },
    scope.signal,
    {
      deadlineAt: Math.min(callDeadline, batchDeadline),
      limit: batchDeadline < callDeadline ? { kind: "batch", ms: batch?.timeoutMs ?? 0 } : { kind: "call", ms: timeoutMs },
      startedAt: call.startedAt,
      retry: { ...config.retry, ...entry.retry },
      breaker: config.breaker,
    },
  );
  call.attempts = execution.attempts;
  const run = execution.run;
  return run.ok ? succeededOutcome(call, run.content, run.value) : failedOutcome(call, run.failure);
}

/** The access rules of the calling request, for tools that act on what another tool made (read_result). */
function mayUse(tool: string, scope: RequestScope): boolean {
  if (scope.access !== undefined && !scope.access.decide(tool).allowed) return false;
  return scope.allowedTools === undefined || scope.allowedTools.names.has(tool);
}
