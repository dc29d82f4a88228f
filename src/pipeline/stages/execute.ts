/**
 * Stage 9, execute: the handler under the call's deadline (the nearer of its own and the
 * batch's), its retry policy and its breaker, all below in execution/.
 */
import type { NestedCall, NestedCallResult } from "../../registry/types.ts";
import { failedOutcome, succeededOutcome } from "../outcome.ts";
import type { CallOutcome, CallState, RequestScope } from "../types.ts";
import { entryOf } from "./entry-of.ts";

const NO_DEPENDENCIES: ReadonlyMap<string, unknown> = new Map();

export async function execute(call: CallState, scope: RequestScope): Promise<CallOutcome> {
  const entry = entryOf(call);
  const { config } = scope;
  const timeoutMs = entry.timeoutMs ?? config.defaultTimeoutMs;
  const callDeadline = call.startedAt + timeoutMs;
  const batch = call.run.batch;
  const batchDeadline = batch?.deadlineAt ?? Number.POSITIVE_INFINITY;
  const deadlineAt = Math.min(callDeadline, batchDeadline);
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
      callTool: nestedCallOf(call, scope, deadlineAt),
      run: scope.run,
      origin: scope.connection.origin ?? scope.run?.origin,
      callerToken: scope.connection.callerToken,
      reportCredential: (kind) => {
        call.credential = kind;
      },
    },
    scope.connection,
    {
      deadlineAt,
      limit: batchDeadline < callDeadline ? { kind: "batch", ms: batch?.timeoutMs ?? 0 } : { kind: "call", ms: timeoutMs },
      startedAt: call.startedAt,
      retry: entry.retry === undefined ? config.retry : { ...config.retry, ...entry.retry },
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

/**
 * The callTool capability of one call: each nested call gets the id `<parent id>.<n>` (so its
 * audit record names its parent) and runs in the parent's scope, stopped by the parent's signal
 * and deadline. Calls made by a nested call get none: one level, so a script cannot start a
 * script.
 */
function nestedCallOf(call: CallState, scope: RequestScope, deadlineAt: number): NestedCall | undefined {
  const serve = scope.parts.serveNested;
  if (serve === undefined || scope.parentCallId !== undefined) return undefined;
  const parentCallId = call.input.id;
  let made = 0;
  return async function callTool(name, args, signal) {
    made += 1;
    const input = { id: `${parentCallId}.${made}`, name, arguments: args };
    const outcome = await serve(
      input,
      { ...scope, connection: { signal, origin: scope.connection.origin, callerToken: scope.connection.callerToken }, parentCallId },
      Math.max(0, deadlineAt - Date.now()),
    );
    return nestedResult(outcome);
  };
}

function nestedResult(outcome: CallOutcome): NestedCallResult {
  const callId = outcome.callId;
  if (outcome.status === "ok") return { callId, status: "ok", result: outcome.truncated ? outcome.content : parsedValue(outcome.value) };
  const error = outcome.envelope ?? {
    error: outcome.content,
    error_code: outcome.errorCode ?? "EXECUTION_FAILED",
    stage: "execute",
    suggestion: "",
    retryable: false,
  };
  return { callId, status: outcome.status, error };
}

/** A result as a script sees it: JSON text parsed, anything else as the tool returned it. */
function parsedValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
