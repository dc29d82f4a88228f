/**
 * The shapes the pipeline's stages share, and nothing else: a module of types only, so every
 * layer may import it without importing the pipeline's code.
 *
 * A request builds one `RequestScope` (who calls, with what access, for which session, and the
 * isolate's parts); each call is a small `CallInput`, and the pipeline keeps what it learns
 * about the call (its parsed arguments, its tool, the access decision) on one `CallState`, so
 * nothing is parsed, looked up or decided twice.
 */
import type { Coercion } from "../arguments/coerce-arguments.ts";
import type { Principal } from "../auth/principal.ts";
import type { Catalog, CatalogView } from "../catalog/catalog.ts";
import type { GatewayConfig } from "../config/config.ts";
import type { ErrorEnvelope } from "../errors/error-envelope.ts";
import type { Fault } from "../errors/fault.ts";
import type { ErrorCode, ToolFailure } from "../errors/tool-failure.ts";
import type { Executor } from "../execution/execute.ts";
import type { PipelineHooks } from "../plugins/pipeline-hooks.ts";
import type { ToolAccess } from "../policy/tool-access.ts";
import type { AvailabilityCache } from "../registry/availability.ts";
import type { ClientChannel } from "../registry/client-channel.ts";
import type { CredentialKind } from "../registry/credential-kind.ts";
import type { AgentRunInfo, CallFormat, ToolEntry } from "../registry/types.ts";
import type { AliasTable } from "../toolsets/tool-aliases.ts";

/** The per-isolate parts the composition root builds once and every request shares. */
export interface PipelineParts {
  catalog: Catalog;
  availability: AvailabilityCache;
  hooks: PipelineHooks;
  /** Runs a handler under its deadline, retries and breaker (execution/execute.ts). */
  execute: Executor;
  /**
   * Runs a call a handler makes (ToolContext.callTool) the way a door runs one: rate limits,
   * pipeline, audit. The batch layer's, handed in by the composition root; without it, handlers
   * get no callTool.
   */
  serveNested?: ServeNested;
}

/**
 * Runs one nested call in `scope` (the parent's, with `parentCallId` set and the parent's
 * signal) and resolves with its outcome; never rejects. `timeoutMs` is what is left of the
 * parent's deadline, so a nested call cannot outlive its parent.
 */
export type ServeNested = (input: CallInput, scope: RequestScope, timeoutMs: number) => Promise<CallOutcome>;

/** A request's toolset: only these tools may run (others get PERMISSION_DENIED). */
export interface AllowedTools {
  toolset: string;
  names: ReadonlySet<string>;
  /** A curated toolset's aliases (only `/mcp/{toolset}` presents them); undefined when it has none. */
  aliases?: AliasTable | undefined;
}

/** Everything one request's calls share, built once per request and passed by reference. */
export interface RequestScope {
  readonly env: Env;
  readonly config: GatewayConfig;
  /** Who asked: the API key's id (`admin-token`, `hook:<name>` for a webhook). */
  readonly keyId: string;
  /** The calling key, when a key made the request (its rate limits are charged to it). */
  readonly principal: Principal | undefined;
  /** The calling key's access, decided once per tool per request; absent for trusted internal callers. */
  readonly access: ToolAccess | undefined;
  readonly allowedTools: AllowedTools | undefined;
  readonly sessionId: string;
  /** The caller's connection: its abort signal and origin, read only when a call needs them. */
  readonly connection: Connection;
  readonly waitUntil: (promise: Promise<unknown>) => void;
  /** The way back to the caller during a call (MCP); silent over /v1 and webhooks. */
  readonly client: ClientChannel;
  /** The registry with remote tools synced for this request. */
  readonly catalog: CatalogView;
  readonly parts: PipelineParts;
  /**
   * A call asked again with the same tool and arguments gets the approval asked for before,
   * whatever its call id: set by an MCP session, whose JSON-RPC ids change on every send.
   */
  readonly matchApprovalsByArguments?: boolean;
  /** Set on the scope of calls a handler made (execute_code's script): the call that made them. */
  readonly parentCallId?: string;
  /** Set on the calls of an agent run: its id (every audit record carries it) and depth. */
  readonly run?: RunScope;
  /** The request's x-request-id (a webhook run's: the delivery's), for its audit records. */
  readonly requestId: string | undefined;
}

/**
 * What a request's connection offers its calls, read on demand: creating a request's AbortSignal
 * showed in the profile of every call in workerd (about 2% of the core pipeline's samples), yet
 * only a handler that asks for its signal, a retry's wait or a failed call reads it. Held by
 * reference, so a scope spread into another (a toolset's, a nested call's) does not read it.
 */
export interface Connection {
  /** Aborts handlers when the client goes away; no retry starts after it fires. */
  readonly signal: AbortSignal | undefined;
  /** The origin the caller reached us at (`https://host`), for the approval page's URL. */
  readonly origin: string | undefined;
  /**
   * The caller's own toolgate OAuth access token, when it signed in through OAuth (the MCP
   * doors): what a `token_exchange` server's call exchanges (RFC 8693). Absent for API keys and
   * for calls run later by themselves (an approved call, a run's alarm).
   */
  readonly callerToken?: string | undefined;
}

/** The agent run a call belongs to (src/agent/); handlers see it as `ctx.run`. */
export type RunScope = AgentRunInfo;

/** The scope of a request a key made: the batch layer charges its rate limits; its access decides every call. */
export type KeyScope = RequestScope & { readonly principal: Principal; readonly access: ToolAccess };

/** An approved call as the Session object hands it to the pipeline. */
export interface ApprovedCall {
  approvalId: string;
  /** SHA-256 of the canonical JSON of the approved arguments. */
  bindingSha256: string;
}

/** One call as a door received it. */
export interface CallInput {
  id: string;
  name: string;
  /** As the model sent them: a JSON string (OpenAI) or an object (Anthropic, MCP). */
  arguments: unknown;
  /** The shape the call came in; OpenAI's when a door does not say (an approved call's run). */
  format?: CallFormat;
  /** The alias a curated endpoint (`/mcp/{toolset}`) was called by; `name` is the real tool. */
  calledAs?: string | undefined;
}

/**
 * What the batch layer adds to a call it runs. Every field is required, even when undefined: the
 * batch layer rebuilds a call's run field by field (a literal, not a spread, on the path of every
 * call), so a new field must be named there.
 */
export interface CallRun {
  /** Parsed results of the calls this one depends on, by call id and by tool name. */
  dependencyResults: ReadonlyMap<string, unknown> | undefined;
  /** The batch's deadline (epoch ms) and timeout; the call's own deadline never passes it. */
  batch: { deadlineAt: number; timeoutMs: number } | undefined;
  /** Set only when the Session object runs a call a person approved. */
  approved: ApprovedCall | undefined;
}

/** An access decision about one tool for the calling key, with the rule that made it. */
export type PolicyVerdict = { decision: "allow" | "deny"; rule: string };

/** What the pipeline knows about one call so far; stages read and extend it. */
export interface CallState {
  readonly input: CallInput;
  /** Set by the batch layer when the call starts (its dependencies' results, the batch deadline). */
  run: CallRun;
  /** When the call started running (set again when it does), for its deadline and its duration. */
  startedAt: number;
  /** The arguments as sent, parsed once (the audit log and hooks reuse them). */
  sentArgs: Record<string, unknown>;
  /** Whether the arguments parsed (when not, the audit log keeps the raw text). */
  parsed: boolean;
  /** The arguments the handler gets: coerced, validated, perhaps replaced by a pre-call hook. */
  args: Record<string, unknown>;
  entry: ToolEntry | undefined;
  policy: PolicyVerdict | undefined;
  coercions: Coercion[];
  attempts: number;
  /** The failure an admission stage (parse, lookup, access) ended the call with, if any. */
  refused: ToolFailure | undefined;
  /** The credential the handler reported carrying upstream (ToolContext.reportCredential). */
  credential: CredentialKind | undefined;
}

/** A stage's verdict: continue (undefined), fail the call, or end it with a finished outcome. */
export type StageResult = undefined | { fail: ToolFailure } | { done: CallOutcome };

export type Stage = (call: CallState, scope: RequestScope) => StageResult | Promise<StageResult>;

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
  /** The raw arguments when they did not parse (the audit log keeps the text, redacted). */
  unparsedArguments?: unknown;
  /** The access decision, when a key's policy was consulted. */
  policy?: PolicyVerdict;
  errorCode?: ErrorCode;
  envelope?: ErrorEnvelope;
  /** Whose fault a failure is: the caller's (fix the call) or the tool's; from the failure's kind. */
  fault?: Fault;
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
  /** The credential the call carried upstream, for its audit record; undefined when it carried none. */
  credential?: CredentialKind | undefined;
}
