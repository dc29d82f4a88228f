/**
 * What POST /v1/runs and POST /v1/chat/completions share: a run request checked (model, toolset,
 * limits within the configured ones) and handed to a new Run object.
 */
import type { RequestFailure } from "../http/request-failure.ts";
import { type CustomToolsetLookup, resolveToolset } from "../toolsets/resolve.ts";
import { resolveModel } from "./model-config.ts";
import { runSettings } from "./run-settings.ts";
import { runStub } from "./run-stub.ts";
import type { ClientTool, Message, RunHookOrigin, RunRecord, RunScheduleOrigin } from "./run-types.ts";

/** What a run request may set; the rest is configured. */
export interface RunRequest {
  messages: Message[];
  tools: ClientTool[];
  toolset: string | undefined;
  toolsets?: string[];
  model: string | undefined;
  maxTurns: number | undefined;
  maxToolCalls: number | undefined;
  tokenBudget: number | undefined;
  sessionId: string | undefined;
  /** False when the caller reads no text as it arrives (run-types.ts `streamTurns`). */
  stream?: boolean;
}

export interface RunOwner {
  keyId: string;
  origin: string | undefined;
  lookup: CustomToolsetLookup;
  parentRunId?: string;
  depth?: number;
  /** A webhook delivery's run: its id is derived from the delivery, so a second start finds the first. */
  runId?: string;
  hook?: RunHookOrigin;
  /** A schedule's firing: its id is derived from the firing too, and the schedule is told when it ends. */
  schedule?: RunScheduleOrigin;
}

/** Why a run cannot start: each kind has its status in request-failure.ts. */
export type StartFailure = Extract<
  RequestFailure,
  { kind: "model_not_configured" | "unknown_model" | "model_forbidden" | "unknown_toolset" | "invalid_request" }
>;

/** Starts a run, or says why it cannot start. */
export async function startRun(
  env: Env,
  request: RunRequest,
  owner: RunOwner,
): Promise<{ ok: true; record: RunRecord } | { ok: false; failure: StartFailure }> {
  const model = resolveModel(env, request.model, owner.keyId);
  if ("kind" in model)
    return {
      ok: false,
      failure:
        model.kind === "model_not_configured"
          ? { kind: "model_not_configured", missing: model.missing }
          : model.kind === "unknown_model"
            ? { kind: "unknown_model", name: model.name, known: model.known }
            : { kind: "model_forbidden", name: model.name },
    };
  if (request.toolset !== undefined && (await resolveToolset(request.toolset, owner.lookup)) === undefined)
    return { ok: false, failure: { kind: "unknown_toolset", name: request.toolset } };
  const settings = runSettings(env);
  const over = [
    request.maxTurns !== undefined && request.maxTurns > settings.maxTurns
      ? { path: "max_turns", message: `at most ${settings.maxTurns} (RUN_MAX_TURNS), got ${request.maxTurns}` }
      : undefined,
    request.maxToolCalls !== undefined && request.maxToolCalls > settings.maxToolCalls
      ? { path: "max_tool_calls", message: `at most ${settings.maxToolCalls} (RUN_MAX_TOOL_CALLS), got ${request.maxToolCalls}` }
      : undefined,
  ].flatMap((issue) => (issue === undefined ? [] : [issue]));
  if (over.length > 0) return { ok: false, failure: { kind: "invalid_request", issues: over } };
  const id = owner.runId ?? crypto.randomUUID();
  const budget = [request.tokenBudget, settings.tokenBudget].filter((b): b is number => b !== undefined);
  const record = await runStub(env, id).start({
    id,
    keyId: owner.keyId,
    sessionId: request.sessionId ?? id,
    model: { name: model.name, model: model.model },
    toolset: request.toolset,
    ...(request.toolsets === undefined ? {} : { toolsets: request.toolsets }),
    messages: request.messages,
    clientTools: request.tools,
    limits: {
      maxTurns: request.maxTurns ?? settings.maxTurns,
      maxToolCalls: request.maxToolCalls ?? settings.maxToolCalls,
      deadlineAt: Date.now() + settings.deadlineMs,
      tokenBudget: budget.length === 0 ? undefined : Math.min(...budget),
    },
    origin: owner.origin,
    ...(owner.parentRunId === undefined ? {} : { parentRunId: owner.parentRunId }),
    depth: owner.depth ?? 0,
    ...(owner.hook === undefined ? {} : { hook: owner.hook }),
    ...(owner.schedule === undefined ? {} : { schedule: owner.schedule }),
    ...(request.stream === false ? { streamTurns: false } : {}),
  });
  return { ok: true, record: record as RunRecord };
}
