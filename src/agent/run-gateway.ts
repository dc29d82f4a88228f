/**
 * What a Run object needs from the gateway, built by the composition root from the isolate's
 * parts: the key's tool definitions, and a way to run the model's calls of toolgate's own tools
 * through the same path as POST /v1/tool-calls (serveCalls: admission, rate limits, policy,
 * approvals, deadlines, audit), as the run's key with its access as it is at this step (a key
 * revoked mid-run stops the run).
 */
import { currentPrincipal } from "../approvals/requester-access.ts";
import { KEY_CACHE_TTL_MS } from "../auth/key-cache.ts";
import type { Principal } from "../auth/principal.ts";
import { serveCalls } from "../batch/serve-calls.ts";
import type { GatewayParts } from "../compose.ts";
import { definitionPieces } from "../formats/definitions-json.ts";
import { openScope, openToolsetScope } from "../pipeline/request-scope.ts";
import type { CallInput, CallOutcome, KeyScope } from "../pipeline/types.ts";
import { createToolAccess } from "../policy/tool-access.ts";
import { availableEntries } from "../registry/definitions.ts";
import { registry } from "../registry/registry.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import { resolveToolset } from "../toolsets/resolve.ts";
import type { RunRecord } from "./run-types.ts";

/** The name of the tool that starts a child run; children do not get it (depth 1). */
export const DELEGATE_TOOL = "delegate_task";

/** A step's scope, or why the run's key may no longer act. */
export type StepScope = { ok: true; scope: KeyScope } | { ok: false; message: string };

export interface RunGateway {
  /** Opens the scope of one step's calls. */
  open(env: Env, run: RunRecord, waitUntil: (promise: Promise<unknown>) => void): Promise<StepScope>;
  /** The OpenAI definitions of the tools the scope may use, each as JSON text (model-request-body.ts joins them). */
  tools(scope: KeyScope, run: RunRecord): Promise<string[]>;
  /** Runs calls through rate limits, the pipeline and the audit log; one outcome per call, in order. */
  serve(calls: readonly CallInput[], scope: KeyScope): Promise<CallOutcome[]>;
}

/**
 * A run's key, and a step's scope and tool definitions built from it, are read again at most this
 * often: the bound on a revocation or an access change reaching a running run, the same as the
 * authentication cache's.
 */
export const RUN_ACCESS_TTL_MS = KEY_CACHE_TTL_MS;

export function runGatewayWith(parts: GatewayParts): RunGateway {
  const principals = new Map<string, { principal: Principal | { message: string }; at: number }>();
  async function principalOf(env: Env, keyId: string): Promise<Principal | { message: string }> {
    const cached = principals.get(keyId);
    if (cached !== undefined && Date.now() - cached.at < RUN_ACCESS_TTL_MS) return cached.principal;
    const principal = await currentPrincipal(env, keyId);
    if (principals.size >= 10_000) principals.clear();
    principals.set(keyId, { principal, at: Date.now() });
    return principal;
  }
  return {
    async open(env, run, waitUntil) {
      const principal = await principalOf(env, run.keyId);
      if (!("keyId" in principal)) return { ok: false, message: principal.message };
      const lookup = kvToolsetLookup(env.KV);
      const input = {
        env,
        principal,
        access: () => createToolAccess(principal, lookup),
        sessionId: run.sessionId,
        waitUntil,
        connection: { signal: undefined, origin: run.origin },
        run: { id: run.id, auditId: run.parentRunId ?? run.id, depth: run.depth, toolset: run.toolset, model: run.model.name, origin: run.origin },
      };
      const opened = run.toolset === undefined ? await openScope(parts.pipeline, input) : await openToolsetScope(parts.pipeline, input, run.toolset, lookup);
      if ("unknownToolset" in opened) return { ok: false, message: `The run's toolset '${opened.unknownToolset}' no longer exists` };
      if (run.toolsets === undefined) return { ok: true, scope: opened };
      // A delegated child: the union of its toolsets, each already checked against its parent's.
      const names = new Set<string>();
      for (const toolset of run.toolsets) for (const name of (await resolveToolset(toolset, lookup)) ?? []) names.add(name);
      const within = opened.allowedTools === undefined ? names : new Set([...names].filter((name) => opened.allowedTools?.names.has(name)));
      return { ok: true, scope: { ...opened, allowedTools: { toolset: run.toolsets.join("+"), names: within } } };
    },
    async tools(scope, run) {
      const names = (scope.allowedTools === undefined ? registry.names() : [...scope.allowedTools.names]).filter(
        (name) => scope.access.decide(name).allowed && !(name === DELEGATE_TOOL && run.depth > 0),
      );
      const entries = await availableEntries(names, scope.env);
      // The cached per-tool JSON that GET /v1/tools serves, so the model sees the same definitions,
      // sent as it is: parsing it only for the model client to serialise it again cost every turn.
      return definitionPieces(entries, "openai", scope.env);
    },
    serve(calls, scope) {
      return serveCalls(calls, scope, scope.config.maxParallelCalls, parts.batch);
    },
  };
}
