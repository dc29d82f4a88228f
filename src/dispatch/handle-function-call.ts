/**
 * The dispatch pipeline every call goes through, whichever door it came in by (HTTP, MCP,
 * webhooks): parse → look up → toolset policy → availability → coerce → validate → pre-call
 * hooks → approval gate → handler → post-call hooks → transform hooks → size limit.
 *
 * It never throws: every failure becomes one JSON body that readers of the original understand
 * (`error` is a string) and that carries the gateway envelope (errors/envelope.ts).
 */
import { approvalGate, type ApprovedCall } from "../approvals/approval-gate.ts";
import { needsApproval } from "../approvals/approval-policy.ts";
import { toEnvelope, type ErrorEnvelope } from "../errors/envelope.ts";
import type { ErrorCode, ToolFailure } from "../errors/tool-failure.ts";
import { loadConfig, type GatewayConfig } from "../config/config.ts";
import { execute } from "../gateway/execute.ts";
import { availability } from "../registry/availability.ts";
import { registry } from "../registry/registry.ts";
import type { ClientChannel, ToolEntry } from "../registry/types.ts";
import { closeMatches } from "./close-matches.ts";
import { coerceArguments, type Coercion } from "./coerce-arguments.ts";
import { hooks } from "./hooks.ts";
import { limitResult } from "./limit-result.ts";
import { parseArguments } from "./parse-arguments.ts";
import { describeThrown } from "./sanitize-error.ts";
import { validateArguments } from "./validate-arguments.ts";

/** An access decision about one tool for the calling key, with the rule that made it. */
export type AccessDecision = { allowed: true; rule: string } | { allowed: false; rule: string; message: string };

/** Who is calling and with what; the HTTP, MCP and webhook doors each build one. */
export interface CallContext {
  callId: string;
  sessionId: string;
  env: Env;
  /** Aborts the handler when the request goes away (and, in the gateway layer, at the deadline). */
  signal?: AbortSignal;
  waitUntil?: (promise: Promise<unknown>) => void;
  /** When set, only these tools may run (the request's toolset); others get PERMISSION_DENIED. */
  allowedTools?: { toolset: string; names: ReadonlySet<string> };
  /** The calling key's access policy (toolsets, whitelist or deny patterns). */
  access?: { decide(name: string): AccessDecision };
  dependencyResults?: ReadonlyMap<string, unknown>;
  /** The batch's deadline (epoch ms) and timeout; the call's own deadline never passes it. */
  batch?: { deadlineAt: number; timeoutMs: number };
  /** Settings to use instead of the environment's (tests, the benchmark). */
  config?: GatewayConfig;
  /**
   * Runs the handler; the gateway's `execute` (breaker, deadline, retries) unless replaced. The
   * benchmark replaces it with a single plain attempt to measure what the gateway layer costs.
   */
  executor?: typeof execute;
  /** The calling API key's id: who asked, when a call needs approval. */
  keyId?: string;
  /** The origin the caller reached us at (`https://host`), for the approval page's URL. */
  origin?: string;
  /**
   * Set only by the session's Durable Object when it runs a call a person approved: the gate lets
   * the call through iff its final arguments hash to what was approved. No door sets it.
   */
  approved?: ApprovedCall;
  /** The way back to the caller (MCP: progress, logs, sampling); no-ops when absent (/v1). */
  client?: ClientChannel;
}

/** Everything the doors and the audit log need to know about one finished call. */
export interface CallOutcome {
  callId: string;
  tool: string;
  toolset: string | undefined;
  /** `pending_approval`: the call waits for a person's decision and has not run (`approval` says which). */
  status: "ok" | "error" | "pending_approval";
  /** The text the model reads: the tool's result, or the JSON error envelope. */
  content: string;
  /** The arguments as the model sent them, parsed (the audit log redacts and hashes them). */
  arguments: Record<string, unknown>;
  /** The access decision, when a key's policy was consulted. */
  policy?: { decision: "allow" | "deny"; rule: string };
  errorCode?: ErrorCode;
  envelope?: ErrorEnvelope;
  /** The parsed result value, for calls that depend on this one. */
  value?: unknown;
  durationMs: number;
  /** Handler attempts made: 0 when the call failed before running, more than 1 after retries. */
  attempts: number;
  coercions: Coercion[];
  truncated: boolean;
  resultChars: number;
  resultHandle?: string;
  /** The approval a pending call waits for: its id, when it expires (epoch ms), the page to decide it. */
  approval?: { id: string; expiresAt: number; url: string };
}

const NO_DEPENDENCIES: ReadonlyMap<string, unknown> = new Map();

/** The channel of doors that cannot talk back to the caller mid-call (/v1): every message is dropped. */
const SILENT_CLIENT: ClientChannel = Object.freeze({ progress: () => undefined, log: () => undefined });

/** Runs one tool call through the whole pipeline and returns its outcome; never throws. */
export async function dispatchCall(name: string, rawArguments: unknown, context: CallContext): Promise<CallOutcome> {
  const started = Date.now();
  const entry = registry.get(name);
  let coercions: Coercion[] = [];
  let args: Record<string, unknown> = {};
  let attempts = 0;
  let sentArgs: Record<string, unknown> = {};

  let policy: CallOutcome["policy"];
  const fail = (failure: ToolFailure): CallOutcome => failureOutcome(name, context.callId, failure, { started, attempts, coercions, args: sentArgs, policy });

  try {
    const parsed = parseArguments(rawArguments);
    if (!parsed.ok) return await observed(fail(parsed.failure), args);
    args = parsed.args;
    sentArgs = parsed.args;

    if (entry === undefined) {
      // Suggest only tools the caller may use: a near-miss must not reveal the others.
      const candidates = context.access === undefined ? registry.names() : registry.names().filter((n) => context.access?.decide(n).allowed === true);
      return await observed(fail({ kind: "unknown_tool", name, closeMatches: closeMatches(name, candidates) }), args);
    }
    if (context.access !== undefined) {
      const decision = context.access.decide(name);
      policy = { decision: decision.allowed ? "allow" : "deny", rule: decision.rule };
      if (!decision.allowed) return await observed(fail({ kind: "access_denied", name, rule: decision.rule, message: decision.message }), args);
    }
    if (context.allowedTools !== undefined && !context.allowedTools.names.has(name)) {
      return await observed(fail({ kind: "outside_toolset", name, toolset: context.allowedTools.toolset }), args);
    }
    const state = await availability.of(entry, context.env);
    if (!state.available) {
      return await observed(fail({ kind: "unavailable", name, reason: state.reason ?? "its availability check failed" }), args);
    }

    const coerced = coerceArguments(args, entry.parameters);
    coercions = coerced.coercions;
    const validated = await validateArguments(entry, coerced.value as Record<string, unknown>);
    if (!validated.ok) return await observed(fail(validated.failure), args);
    args = validated.args;

    const pre = await hooks.runPreCall(event(entry, context, args));
    if (pre.blocked) return await observed(fail({ kind: "blocked_by_hook", name, message: pre.message }), args);
    if (pre.replaced) {
      const revalidated = await validateArguments(entry, pre.args);
      if (!revalidated.ok) return await observed(fail(revalidated.failure), args);
      args = revalidated.args;
    }

    const config = context.config ?? loadConfig(context.env);
    // After the hooks, so an approval binds to the arguments the handler would really get. The
    // synchronous check first: calls of ordinary tools pay no await for the approvals layer.
    if (needsApproval(entry, config)) {
      const gate = await approvalGate(entry, args, context, config);
      if (gate.kind === "refuse") return await observed(fail(gate.failure), args);
      if (gate.kind === "stored") {
        // The same tool call id again: the approved call's stored outcome, never a second run.
        const { status, content, errorCode } = gate.result;
        const replay: CallOutcome = {
          callId: context.callId,
          tool: name,
          toolset: entry.toolset,
          status,
          content,
          arguments: sentArgs,
          ...(policy === undefined ? {} : { policy }),
          ...(errorCode === undefined ? {} : { errorCode }),
          durationMs: Date.now() - started,
          attempts: 0,
          coercions,
          truncated: false,
          resultChars: content.length,
        };
        return await observed(replay, args);
      }
    }

    const timeoutMs = entry.timeoutMs ?? config.defaultTimeoutMs;
    const callDeadline = started + timeoutMs;
    const batchDeadline = context.batch?.deadlineAt ?? Number.POSITIVE_INFINITY;
    const execution = await (context.executor ?? execute)(
      entry,
      args,
      {
        callId: context.callId,
        sessionId: context.sessionId,
        toolName: name,
        env: context.env,
        dependencyResults: context.dependencyResults ?? NO_DEPENDENCIES,
        waitUntil: context.waitUntil ?? (() => undefined),
        client: context.client ?? SILENT_CLIENT,
      },
      context.signal,
      {
        deadlineAt: Math.min(callDeadline, batchDeadline),
        limit: batchDeadline < callDeadline ? { kind: "batch", ms: context.batch?.timeoutMs ?? 0 } : { kind: "call", ms: timeoutMs },
        startedAt: started,
        retry: { ...config.retry, ...entry.retry },
        breaker: config.breaker,
      },
    );
    attempts = execution.attempts;
    const run = execution.run;
    const outcome = run.ok ? { ...succeed(entry, context, run.content, run.value, started, coercions, attempts), arguments: sentArgs, ...(policy === undefined ? {} : { policy }) } : fail(run.failure);
    return await finish(entry, context, args, outcome);
  } catch (unexpected) {
    // Only our own bugs land here; the model still gets a well-formed, sanitised error.
    console.error(`dispatch of '${name}' failed unexpectedly: ${describeThrown(name, unexpected)}`);
    return fail({ kind: "handler_threw", name, detail: describeThrown(name, unexpected), retryable: false });
  }

  function observed(outcome: CallOutcome, seenArgs: Record<string, unknown>): Promise<CallOutcome> {
    return observe(outcome, seenArgs, context);
  }
}

/** The outcome of a call that failed with `failure`. */
function failureOutcome(
  name: string,
  callId: string,
  failure: ToolFailure,
  at: { started: number; attempts: number; coercions: Coercion[]; args: Record<string, unknown>; policy: CallOutcome["policy"] },
): CallOutcome {
  const envelope = toEnvelope(failure);
  const pending = failure.kind === "approval_required";
  return {
    callId,
    tool: name,
    toolset: registry.get(name)?.toolset,
    status: pending ? "pending_approval" : "error",
    ...(pending ? { approval: { id: failure.approvalId, expiresAt: failure.expiresAt, url: failure.url } } : {}),
    content: JSON.stringify(envelope),
    arguments: at.args,
    ...(at.policy === undefined ? {} : { policy: at.policy }),
    errorCode: envelope.error_code,
    envelope,
    durationMs: Date.now() - at.started,
    attempts: at.attempts,
    coercions: at.coercions,
    truncated: false,
    resultChars: 0,
  };
}

/** The outcome of a call that ended with `failure` before running (the approvals layer's records). */
export function outcomeOfFailure(name: string, callId: string, failure: ToolFailure, args: Record<string, unknown>): CallOutcome {
  return failureOutcome(name, callId, failure, { started: Date.now(), attempts: 0, coercions: [], args, policy: undefined });
}

async function observe(outcome: CallOutcome, args: Record<string, unknown>, context: CallContext): Promise<CallOutcome> {
  if (hooks.hasPostCall) await hooks.runPostCall(postEvent(outcome, args, context));
  return outcome;
}

/**
 * Ends a call that the batch layer decided not to run (a failed dependency, a passed batch
 * deadline) the way every other call ends: as an outcome that post-call hooks see.
 */
export function settleUnrun(name: string, rawArguments: unknown, context: CallContext, failure: ToolFailure): Promise<CallOutcome> {
  const parsed = parseArguments(rawArguments);
  const args = parsed.ok ? parsed.args : {};
  // The key's decision is cached per request, so the audit log can name it for unrun calls too.
  const decision = context.access?.decide(name);
  const policy = decision === undefined ? undefined : { decision: decision.allowed ? ("allow" as const) : ("deny" as const), rule: decision.rule };
  const outcome = failureOutcome(name, context.callId, failure, { started: Date.now(), attempts: 0, coercions: [], args, policy });
  return observe(outcome, args, context);
}

function event(entry: ToolEntry, context: CallContext, args: Record<string, unknown>) {
  return { tool: entry.name, toolset: entry.toolset, callId: context.callId, sessionId: context.sessionId, args, env: context.env };
}

function postEvent(outcome: CallOutcome, args: Record<string, unknown>, context: CallContext) {
  return {
    tool: outcome.tool,
    toolset: outcome.toolset ?? "",
    callId: context.callId,
    sessionId: context.sessionId,
    args,
    env: context.env,
    result: outcome.content,
    status: outcome.status,
    ...(outcome.errorCode === undefined ? {} : { errorCode: outcome.errorCode }),
    durationMs: outcome.durationMs,
  };
}

/**
 * A tool may report a business failure itself with `toolError(...)` (`{"error": "..."}`), as
 * Hermes tools do; the original's post-call hook counted that as an error, and so do we.
 */
function reportsError(value: unknown): boolean {
  let data = value;
  if (typeof value === "string") {
    if (!value.startsWith("{\"error\"")) return false;
    try {
      data = JSON.parse(value);
    } catch {
      return false;
    }
  }
  return typeof data === "object" && data !== null && typeof (data as { error?: unknown }).error === "string";
}

function succeed(entry: ToolEntry, context: CallContext, content: string, value: unknown, started: number, coercions: Coercion[], attempts: number): Omit<CallOutcome, "arguments"> {
  const failed = reportsError(value);
  return {
    callId: context.callId,
    tool: entry.name,
    toolset: entry.toolset,
    status: failed ? "error" : "ok",
    ...(failed ? { errorCode: "EXECUTION_FAILED" as const } : {}),
    content,
    value,
    durationMs: Date.now() - started,
    attempts,
    coercions,
    truncated: false,
    resultChars: content.length,
  };
}

/** Post-call hooks, transform hooks and the size limit, for calls whose handler ran. */
async function finish(entry: ToolEntry, context: CallContext, args: Record<string, unknown>, outcome: CallOutcome): Promise<CallOutcome> {
  const post = postEvent(outcome, args, context);
  if (hooks.hasPostCall) await hooks.runPostCall(post);
  const content = hooks.hasTransform ? await hooks.runTransform(post) : outcome.content;
  const limited = await limitResult(content, entry.maxResultSizeChars, {
    tool: entry.name,
    callId: context.callId,
    sessionId: context.sessionId,
    env: context.env,
    ttlSeconds: (context.config ?? loadConfig(context.env)).resultTtlSeconds,
  });
  return {
    ...outcome,
    content: limited.content,
    truncated: limited.truncated,
    resultChars: limited.totalChars,
    ...(limited.handle === undefined ? {} : { resultHandle: limited.handle }),
  };
}

/**
 * Hermes' entry point, by name: runs a call and returns the JSON string the model reads.
 */
export async function handleFunctionCall(name: string, rawArguments: unknown, context: CallContext): Promise<string> {
  return (await dispatchCall(name, rawArguments, context)).content;
}
