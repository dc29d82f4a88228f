/**
 * Expected failures of one tool call, as a tagged union.
 *
 * Every way a call can fail without it being our bug is a variant here; `toEnvelope` in
 * envelope.ts maps each one to the wire with an exhaustive switch, so a new variant does not
 * compile until someone has written what the model should read and do about it.
 */

/** The model-facing error codes (docs/errors.md lists each with an example). */
export type ErrorCode =
  | "UNKNOWN_TOOL"
  | "INVALID_ARGUMENTS"
  | "TOOL_UNAVAILABLE"
  | "PERMISSION_DENIED"
  | "RATE_LIMITED"
  | "APPROVAL_REQUIRED"
  | "APPROVAL_DENIED"
  | "APPROVAL_EXPIRED"
  | "CONNECTION_REQUIRED"
  | "CALL_ID_REUSED"
  | "TOOL_TIMEOUT"
  | "DEPENDENCY_FAILED"
  | "UPSTREAM_ERROR"
  | "EXECUTION_FAILED";

/** Where in the pipeline a call failed. */
export type Stage = "parse" | "lookup" | "policy" | "availability" | "validate" | "pre_hook" | "execute" | "result" | "approval";

/** One invalid field, as the validator saw it. */
export interface FieldIssue {
  /** Dotted path such as `items.0.url`; empty for the arguments object itself. */
  path: string;
  message: string;
  expected?: string;
  received?: string;
}

/**
 * Why a token exchange (src/mcp/client/oauth/token-exchange.ts) gave no token:
 * - `no_oauth_sign_in`: the caller is not an OAuth grant with its token at hand (an API key, an
 *   approved call run later by itself);
 * - `not_configured`: the deployment lacks what the exchange needs (its client, secret, a URL OUTBOUND_ALLOW lets through);
 * - `not_supported`: the authorization server does not offer token exchange, or cannot be found;
 * - `refused`: it answered with an OAuth error;
 * - `bad_answer`: it answered with something that is not a token response (an HTML page, a 5xx);
 * - `unreachable`: no answer.
 */
export type TokenExchangeProblem = "no_oauth_sign_in" | "not_configured" | "not_supported" | "refused" | "bad_answer" | "unreachable";

export type ToolFailure =
  | { kind: "malformed_json"; detail: string; position?: number }
  | { kind: "arguments_not_object"; received: string }
  /** Objects and arrays nested past `maxDepth` levels; `path` is the first container too deep. */
  | { kind: "arguments_too_deep"; path: string; maxDepth: number }
  /** More than `maxValues` array elements and object members, counted at every level. */
  | { kind: "arguments_too_many_values"; maxValues: number }
  | { kind: "unknown_tool"; name: string; closeMatches: readonly string[] }
  | { kind: "outside_toolset"; name: string; toolset: string }
  | { kind: "unavailable"; name: string; reason: string; retryAfterMs?: number }
  | { kind: "invalid_arguments"; name: string; issues: readonly FieldIssue[]; example?: string }
  | { kind: "blocked_by_hook"; name: string; message: string }
  | { kind: "handler_threw"; name: string; detail: string; retryable: boolean }
  | { kind: "bad_result_type"; name: string; resultType: string }
  | {
      kind: "timeout";
      name: string;
      elapsedMs: number;
      timeoutMs: number;
      limit: "call" | "batch";
      /**
       * Set when the handler did finish, but after the deadline (synchronous work no timer can
       * interrupt): its result is withheld, and these are the resources it declares it writes,
       * which may have changed.
       */
      overran?: { writes: readonly string[] };
    }
  | { kind: "not_started"; name: string; batchTimeoutMs: number }
  | { kind: "own_timeout"; name: string; detail: string; retryable: boolean }
  | { kind: "upstream"; name: string; status: number; detail: string; retryAfterMs?: number }
  | { kind: "network"; name: string; host: string; detail: string }
  | { kind: "rate_limited"; name: string; scope: "key" | "tool"; limit: number; retryAfterMs: number }
  | { kind: "access_denied"; name: string; rule: string; message: string }
  | { kind: "circuit_open"; name: string; scope: "tool" | "host"; target: string; retryAfterMs: number; failures: number }
  | { kind: "dependency_failed"; name: string; dependencyCallId: string; dependencyTool: string; dependencyCode: ErrorCode }
  | { kind: "approval_required"; name: string; approvalId: string; expiresAt: number; url: string; pollPath: string }
  | { kind: "approval_denied"; name: string; approvalId: string; reason: string | undefined; decidedBy: string }
  | { kind: "approval_expired"; name: string; approvalId: string; expiresAt: number }
  | { kind: "approval_interrupted"; name: string; approvalId: string }
  | { kind: "approval_unbound"; name: string; approvalId: string }
  | { kind: "call_id_reused"; name: string; callId: string; firstTool: string }
  | { kind: "remote_tool_error"; name: string; server: string; detail: string }
  /**
   * An OpenAPI operation's API answered with an error status that ctx.fetch hands back (a 4xx
   * other than 429, a 5xx other than 502-504): the API's own message, and what to change.
   * `operation` is the method and path template (`POST /pets`); 5xx are retryable.
   */
  | { kind: "api_error"; name: string; operation: string; status: number; detail: string; fix: string; retryable: boolean }
  /**
   * A `per_user` server or OpenAPI source (src/mcp/federation/connections/) whose caller has no working connection
   * of their own: `url` is a one-time link the person opens to connect (absent when the door
   * knows no origin to build it on), `reason` why (none yet, or the upstream refused it).
   */
  | {
      kind: "connection_required";
      name: string;
      /** The upstream's id (src/mcp/federation/connections/upstream.ts), as the connections API names it. */
      server: string;
      /** How a sentence names it: `API 'x'`; an MCP server (`MCP server 'x'`) when absent. */
      label?: string;
      reason: string;
      url: string | undefined;
      expiresAt: number | undefined;
    }
  /**
   * A federated server answered the call with URLElicitationRequiredError (MCP 2025-11-25, code
   * -32042): a person must open its link (a third-party sign-in, say) before the call can go on.
   * The link passed the check of src/mcp/federation/url-elicitation.ts; `elicitationId` is the
   * server's, kept so a 2025 client can match the server's completion notice.
   */
  | { kind: "upstream_link_required"; name: string; server: string; url: string; message: string; elicitationId: string }
  /**
   * A `token_exchange` server (RFC 8693) whose token for this caller could not be had: the call
   * carries no toolgate OAuth sign-in to exchange, the exchange is not set up, or the
   * authorization server refused it (`oauthError`) or answered badly. The call never ran upstream.
   */
  | { kind: "token_exchange_failed"; name: string; server: string; problem: TokenExchangeProblem; detail: string; oauthError: string | undefined }
  /** An agent run's call whose run was cut short while it ran (src/agent/): it is never run a second time. */
  | { kind: "run_interrupted"; name: string; runId: string }
  /**
   * A caller's script (execute_code) ended badly: it threw, ran past its budget, ran out of
   * memory or stack, or made too many tool calls. The script's fault, so it never counts
   * against the tool's circuit breaker; `detail` carries the error and the script's console output.
   */
  | { kind: "script_failed"; name: string; reason: string; detail: string }
  /**
   * In MCP's modern era, the tool asked its client something (elicitation, sampling) that has no
   * answer yet: this leg ends and the door answers `input_required` instead of this failure
   * (src/mcp/server/tool-questions.ts), so only the audit log shows it. Not the tool's trouble,
   * so it never counts against its breaker, and never retried.
   */
  | { kind: "client_input_needed"; name: string; method: string }
  /**
   * A federated server asked, during the call, for input (elicitation, sampling) that the client
   * who made the call cannot give: it declared no such capability, has no stream to be asked on,
   * or refused the method (src/mcp/federation/forward-questions.ts). The call ends with this.
   */
  | { kind: "client_input_unavailable"; name: string; server: string; method: string; reason: string }
  /**
   * In MCP's modern era, a call's answers so far (and a federated server's own state) no longer
   * fit the signed requestState that carries them to the next round (src/mcp/server/request-state.ts
   * bounds what it reads): handing out a state that would be refused on the retry would mislead
   * the client, so the call ends with this instead.
   */
  | { kind: "client_answers_too_large"; name: string; chars: number; maxChars: number };

/**
 * Thrown by a tool (or by the `fail` helper) to report an expected failure with a code the
 * model understands, instead of a bare exception that becomes EXECUTION_FAILED.
 */
export class ToolFailureError extends Error {
  override readonly name = "ToolFailureError";
  readonly failure: ToolFailure;
  constructor(failure: ToolFailure) {
    super(failure.kind);
    this.failure = failure;
  }
}
