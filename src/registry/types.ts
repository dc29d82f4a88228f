/**
 * The shapes a tool file hands to `registry.register(...)`, and what a handler receives.
 *
 * One zod schema per tool is the single source for validation, the JSON Schema the model
 * sees, the OpenAPI document and the MCP `inputSchema`.
 */
import type { z } from "zod";
import type { ErrorEnvelope } from "../errors/error-envelope.ts";
import type { ClientChannel } from "./client-channel.ts";
import type { CredentialKind } from "./credential-kind.ts";
import type { WorstInput } from "./worst-input.ts";

/** JSON Schema as emitted for the model (an object schema for tool parameters). */
export type JsonSchema = { [key: string]: unknown };

/** The provider-neutral definition of one tool; formats/ turns it into each wire shape. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** The wire shape a call arrived in (and is answered in): a provider's tool call, or MCP. */
export type CallFormat = "openai" | "anthropic" | "mcp" | "responses" | "gemini";

/** What every handler receives besides its parsed arguments. */
export interface ToolContext {
  /** The model's tool call id (or one generated for the call). */
  callId: string;
  sessionId: string;
  /**
   * Who is calling: the API key's id (`admin-token` for the bootstrap token, `hook:<name>` for
   * a webhook). Tools that keep state per caller (a workspace, memory) key it by this.
   */
  keyId: string;
  toolName: string;
  /** Fires when the call's deadline passes or the request goes away; pass it to fetch. */
  signal: AbortSignal;
  env: Env;
  /** 1 for the first try; the gateway's retry layer raises it. */
  attempt: number;
  /**
   * When this attempt's deadline passes (epoch ms): the nearer of the tool's and the batch's.
   * For tools whose work the runtime cannot interrupt from outside (a script that spins keeps
   * the deadline's timer from firing), so they can stop themselves in time.
   */
  deadlineAt: number;
  /**
   * Parsed results of the calls this one depends on (batch layer), by the dependency's call id
   * and by its tool name; when a batch holds two calls of one tool, the name holds the last.
   */
  dependencyResults: ReadonlyMap<string, unknown>;
  /** Schedules work that may outlive the response (ExecutionContext.waitUntil). */
  waitUntil: (promise: Promise<unknown>) => void;
  /**
   * fetch for tools that call out: stopped at the call's deadline, guarded by the upstream
   * host's circuit breaker, and turning network errors and HTTP 429/502/503/504 into failures
   * the gateway retries (honouring Retry-After).
   */
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Talks back to the caller while the call runs: progress and log notifications, and requests
   * such as sampling or elicitation. The MCP door delivers them; over /v1 they are no-ops.
   */
  client: ClientChannel;
  /**
   * Whether the calling key (and the request's toolset) may use `tool`: for tools that hand out
   * what another tool produced (read_result), which must not reveal what the key may not call.
   */
  mayUse: (tool: string) => boolean;
  /**
   * The shape the caller speaks (its call's shape; `mcp` over /mcp), for tools that hand back
   * tool definitions (tool_search) the caller can use as they are.
   */
  format: CallFormat;
  /**
   * Calls another tool through the whole pipeline (the key's policy, approvals, rate limits, one
   * audit record whose call id is derived from this call's), for tools that run a caller's
   * script (execute_code). Absent where a call cannot make calls of its own: inside such a
   * call, so a script cannot start another script.
   */
  callTool?: NestedCall;
  /** The agent run this call is part of (src/agent/), absent for calls a client sent itself. */
  run?: AgentRunInfo;
  /**
   * The origin the caller reached toolgate at (`https://host`), for links a person must open
   * (a per-user connection's); absent where the door has none (a queue, an alarm).
   */
  origin?: string | undefined;
  /**
   * The caller's own toolgate OAuth access token (pipeline/types.ts, Connection), for a
   * `token_exchange` server's call to exchange; never logged, never sent anywhere else.
   */
  callerToken?: string | undefined;
  /**
   * Tells the audit log which credential this call carried upstream (credential-kind.ts), once
   * it is about to send it; the last report wins. Tools that call no upstream never report.
   */
  reportCredential: (kind: CredentialKind) => void;
}

/** An agent run as its calls' handlers see it (delegate_task starts a child of it). */
export interface AgentRunInfo {
  id: string;
  /** The run audit records name: the parent's for a delegate_task child, so children are audited under it. */
  auditId: string;
  /** 0 for a run a client started; 1 for a delegate_task child, which cannot delegate again. */
  depth: number;
  /** The toolset the run is limited to, which a child's toolsets must stay within. */
  toolset: string | undefined;
  /** The model the run uses (its name), which a child uses too. */
  model: string;
  /** The caller's origin, for approval page URLs. */
  origin: string | undefined;
}

/** One call made from inside a handler (ToolContext.callTool); `signal` is the caller's. */
export type NestedCall = (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<NestedCallResult>;

/** How a nested call ended: its derived call id, and its parsed result or the error envelope the model would read. */
export type NestedCallResult =
  | { callId: string; status: "ok"; result: unknown }
  | { callId: string; status: "error" | "pending_approval"; error: ErrorEnvelope };

/** Availability probe. A truthy result means the tool can work now; a throw means it cannot. */
export type AvailabilityCheck = (env: Env) => boolean | Promise<boolean>;

/** Called at each definitions request; its object is shallow-merged over the definition. */
export type DynamicSchemaOverrides = (env: Env) => Partial<Omit<ToolDefinition, "name">>;

/** Retry policy of one tool (the gateway layer reads it; defaults come from configuration). */
export interface RetryPolicy {
  maxAttempts?: number;
  backoffBaseMs?: number;
  /** Each wait is this many times the one before (at least 1). */
  backoffFactor?: number;
  retryOnTimeout?: boolean;
}

/** The resources a call touches: fixed names, or names derived from its arguments. */
export type Resources = readonly string[] | ((args: Record<string, unknown>) => readonly string[]);

/** What a tool file passes to `registry.register`. */
export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  /** Must match ^[a-zA-Z0-9_-]{1,64}$, the rule OpenAI and Anthropic both accept. */
  name: string;
  toolset: string;
  /**
   * Input schema; it should be a z.object so the model sees an object of named fields. Given as
   * a function, it is built at the tool's first use instead of when its file is imported: zod
   * schema construction was a third of the Worker's start-up, paid by every cold isolate (issue 33).
   */
  schema: S | (() => S);
  /** When absent, empty or blank, the schema's own description is used. */
  description?: string;
  handler: (args: z.output<S>, ctx: ToolContext) => unknown;
  check?: AvailabilityCheck;
  /** Env var names; a tool whose required vars are unset is unavailable (unlike the original). */
  requiresEnv?: readonly string[];
  /**
   * Env var names of which at least one must be set (alternative providers, such as a search
   * tool's API keys); while none is, the tool is unavailable and the reason names them all.
   */
  requiresAnyEnv?: readonly string[];
  emoji?: string;
  /** Results longer than this are previewed and stored, never silently cut. */
  maxResultSizeChars?: number;
  dynamicSchemaOverrides?: DynamicSchemaOverrides;
  /** Replace a tool of the same name registered by another toolset. */
  override?: boolean;
  /** Per-call deadline (gateway layer). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Tools whose results this one consumes when both are in one batch (gateway layer). */
  dependsOn?: readonly string[];
  /**
   * Resources this tool reads and writes, to order conflicting calls of one batch: names, or a
   * function of the call's arguments (as sent) naming them, for a tool whose resource is one of
   * many (`workspace:<path>`). A name ending in `*` stands for every name it is a prefix of.
   */
  reads?: Resources;
  writes?: Resources;
  /** Always needs human approval (approvals layer). */
  risky?: boolean;
  /**
   * Needs human approval for these final arguments only (approvals layer): a tool that is safe
   * for some calls (an HTTP GET) and not for others (a POST). `risky: true` wins over it.
   */
  riskyWhen?: (args: z.output<S>) => boolean;
  /**
   * The tool only reads: it changes no stored state, sends nothing but GET requests and runs
   * no code. The `safe` preset holds exactly such tools (and none that declares `writes` or is
   * `risky`); a tool that does not say so stays out of it, so the preset fails closed.
   */
  readOnly?: boolean;
  /**
   * Arguments a model could send, shown in docs and checked by the contract suite
   * (test/tools/contract.test.ts): they must validate against `schema` and the call must answer.
   */
  example?: Record<string, unknown>;
  /**
   * The inputs at this tool's caps that cost it most (STYLE 13): the hostile suite
   * (test/scripts/hostile-tools.test.ts) sends each through a local Worker while it probes
   * `GET /health`, and the call must end within its deadline while the isolate keeps answering.
   * The contract suite refuses a tool without them.
   */
  worstInputs?: readonly WorstInput[];
  /**
   * A test fixture (the MCP conformance tools): never part of `all`/`*` or of an unrestricted
   * key's access; only a key whose toolsets name the fixture's toolset may list or call it.
   */
  fixture?: boolean;
  /**
   * The JSON Schema the model sees, used as given instead of being derived from `schema`: a
   * remote MCP tool's own `inputSchema` (its `schema` is the validator built from it).
   */
  parameters?: JsonSchema;
  /**
   * A refusal decided outside the availability check and its cache: when it returns a reason
   * the tool is unavailable at once, and available again as soon as it returns undefined (a
   * remote tool whose pinned definition changed stays blocked until an admin accepts it).
   */
  gate?: () => string | undefined;
}

/** A registered tool: the spec with defaults applied and the derived JSON Schema cached. */
export interface ToolEntry extends Omit<ToolSpec, "schema" | "description" | "requiresEnv" | "emoji" | "maxResultSizeChars"> {
  /** The input schema, built at its first read when the spec gave a function. */
  schema: z.ZodType;
  description: string;
  requiresEnv: readonly string[];
  emoji: string;
  maxResultSizeChars: number;
  /** JSON Schema of the input, derived once at registration. */
  parameters: JsonSchema;
}
