/**
 * The one place where a ToolFailure becomes what the model reads.
 *
 * The body keeps the original's shape (`error` is a string, so readers of Hermes results still
 * work) and adds the gateway envelope: code, stage, the next thing to do, and whether a retry
 * can help.
 */
import { sanitizeErrorText } from "../execution/sanitize-error.ts";
import type { ErrorCode, FieldIssue, Stage, ToolFailure } from "./tool-failure.ts";

/** The JSON body of every failed call. */
export interface ErrorEnvelope {
  error: string;
  error_code: ErrorCode;
  stage: Stage;
  suggestion: string;
  retryable: boolean;
  retry_after_ms?: number;
  /** Per-field problems of INVALID_ARGUMENTS. */
  issues?: readonly FieldIssue[];
  /** APPROVAL_*: which approval, until when (ISO 8601, for the model), and the page a person uses. */
  approval?: { id: string; expires_at: string; url: string };
}

/** Upstream statuses worth retrying: rate limiting and the gateway-ish 5xx family. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

function describeIssue(issue: FieldIssue): string {
  return `${issue.path === "" ? "the arguments object" : `'${issue.path}'`}: ${issue.message}`;
}

/** 150 → "0.15s", 30000 → "30s": precise enough to compare with the configured value. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))}s`;
}

/**
 * Maps a failure to its envelope. The message is sanitised here, once for every kind, because
 * several carry text from outside (an upstream's body, a fetch error, a check's exception).
 */
export function toEnvelope(failure: ToolFailure): ErrorEnvelope {
  const envelope = describeFailure(failure);
  return { ...envelope, error: sanitizeErrorText(envelope.error) };
}

/** Exhaustive, so a new failure kind does not compile until it is mapped. */
function describeFailure(failure: ToolFailure): ErrorEnvelope {
  switch (failure.kind) {
    case "malformed_json":
      return {
        error: `Arguments are not valid JSON${failure.position === undefined ? "" : ` (at position ${failure.position})`}: ${failure.detail}`,
        error_code: "INVALID_ARGUMENTS",
        stage: "parse",
        suggestion: "Send the arguments as one JSON object, for example {\"query\": \"text\"}, with double-quoted keys and no trailing text.",
        retryable: false,
      };
    case "arguments_not_object":
      return {
        error: `Arguments must be a JSON object of named fields; received ${failure.received}.`,
        error_code: "INVALID_ARGUMENTS",
        stage: "parse",
        suggestion: "Wrap the values in an object keyed by parameter name, as the tool's schema shows.",
        retryable: false,
      };
    case "unknown_tool":
      return {
        error: `Unknown tool: ${failure.name}`,
        error_code: "UNKNOWN_TOOL",
        stage: "lookup",
        suggestion:
          failure.closeMatches.length > 0
            ? `Did you mean ${failure.closeMatches.map((n) => `'${n}'`).join(" or ")}? Call one of the tools listed in your tool definitions.`
            : "Call only tools listed in your tool definitions.",
        retryable: false,
      };
    case "outside_toolset":
      return {
        error: `Tool '${failure.name}' is not in toolset '${failure.toolset}' that this request allows.`,
        error_code: "PERMISSION_DENIED",
        stage: "policy",
        suggestion: "Use a tool from the allowed toolset, or tell the user this action is not permitted here.",
        retryable: false,
      };
    case "unavailable":
      return {
        error: `Tool '${failure.name}' is unavailable: ${failure.reason}`,
        error_code: "TOOL_UNAVAILABLE",
        stage: "availability",
        suggestion: "Use another tool for this step, or tell the user that this tool cannot work right now.",
        retryable: failure.retryAfterMs !== undefined,
        ...(failure.retryAfterMs === undefined ? {} : { retry_after_ms: failure.retryAfterMs }),
      };
    case "invalid_arguments":
      return {
        error: `Invalid arguments for '${failure.name}': ${failure.issues.map(describeIssue).join("; ")}`,
        error_code: "INVALID_ARGUMENTS",
        stage: "validate",
        suggestion: `Fix the listed fields and call '${failure.name}' again${failure.example === undefined ? "" : `, for example with ${failure.example}`}.`,
        retryable: false,
        issues: failure.issues,
      };
    case "blocked_by_hook":
      return {
        error: failure.message,
        error_code: "PERMISSION_DENIED",
        stage: "pre_hook",
        suggestion: "Do not repeat this call; choose another approach or ask the user.",
        retryable: false,
      };
    case "handler_threw":
      return {
        error: failure.detail,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: failure.retryable
          ? `The failure looks transient; call '${failure.name}' again once.`
          : `Do not repeat the same call unchanged; adjust the arguments or use another tool.`,
        retryable: failure.retryable,
      };
    case "bad_result_type":
      return {
        error: `Tool '${failure.name}' returned an unsupported result type: ${failure.resultType}`,
        error_code: "EXECUTION_FAILED",
        stage: "result",
        suggestion: "This is a defect in the tool; use another tool or tell the user.",
        retryable: false,
      };
    case "timeout":
      return {
        error: `Tool '${failure.name}' timed out after ${seconds(failure.elapsedMs)} (configured ${failure.limit === "batch" ? "batch deadline" : "timeout"}: ${seconds(failure.timeoutMs)}).`,
        error_code: "TOOL_TIMEOUT",
        stage: "execute",
        suggestion:
          failure.limit === "batch"
            ? "Send fewer or smaller calls per batch, then call again."
            : "Narrow the request (a smaller range, fewer items, a more specific query) and call again.",
        retryable: true,
      };
    case "not_started":
      return {
        error: `Tool '${failure.name}' did not start: the batch passed its ${seconds(failure.batchTimeoutMs)} deadline while this call waited for a free slot or its dependencies.`,
        error_code: "TOOL_TIMEOUT",
        stage: "execute",
        suggestion: "Call it again in a smaller batch.",
        retryable: true,
      };
    case "own_timeout":
      return {
        error: `Tool '${failure.name}' gave up waiting on its upstream: ${failure.detail}`,
        error_code: "TOOL_TIMEOUT",
        stage: "execute",
        suggestion: "Narrow the request and call again, or try later.",
        retryable: failure.retryable,
      };
    case "network":
      return {
        error: `Tool '${failure.name}' could not reach ${failure.host}: ${failure.detail}`,
        error_code: "UPSTREAM_ERROR",
        stage: "execute",
        suggestion: "The upstream may be down; try again later or use another source.",
        retryable: true,
      };
    case "rate_limited":
      return {
        error: `Rate limit reached: ${failure.scope === "tool" ? `at most ${failure.limit} calls of '${failure.name}'` : `at most ${failure.limit} tool calls`} per minute for this API key.`,
        error_code: "RATE_LIMITED",
        stage: "policy",
        suggestion: `Wait ${seconds(failure.retryAfterMs)} before calling ${failure.scope === "tool" ? `'${failure.name}'` : "tools"} again; batch fewer calls.`,
        retryable: true,
        retry_after_ms: failure.retryAfterMs,
      };
    case "access_denied":
      return {
        error: failure.message,
        error_code: "PERMISSION_DENIED",
        stage: "policy",
        suggestion: "This API key may not use this tool; use one listed in your tool definitions, or tell the user.",
        retryable: false,
      };
    case "circuit_open":
      return {
        error: `Tool '${failure.name}' is paused: ${failure.scope === "host" ? `its upstream ${failure.target}` : "it"} failed ${failure.failures} times in a row. Calls resume in about ${seconds(failure.retryAfterMs)}.`,
        error_code: "TOOL_UNAVAILABLE",
        stage: "availability",
        suggestion: `Do not call '${failure.name}' again for ${seconds(failure.retryAfterMs)}; use another tool or tell the user it is temporarily unavailable.`,
        retryable: true,
        retry_after_ms: failure.retryAfterMs,
      };
    case "upstream":
      return {
        error: `Tool '${failure.name}' got HTTP ${failure.status} from its upstream: ${failure.detail}`,
        error_code: failure.status === 429 ? "RATE_LIMITED" : "UPSTREAM_ERROR",
        stage: "execute",
        suggestion:
          failure.retryAfterMs === undefined
            ? "Wait a little before calling this tool again, or use another source."
            : `Wait ${Math.ceil(failure.retryAfterMs / 1000)}s before calling this tool again.`,
        retryable: RETRYABLE_STATUSES.has(failure.status),
        ...(failure.retryAfterMs === undefined ? {} : { retry_after_ms: failure.retryAfterMs }),
      };
    case "dependency_failed":
      if (failure.dependencyCode === "APPROVAL_REQUIRED") {
        return {
          error: `Tool '${failure.name}' did not run: it depends on '${failure.dependencyTool}' (call ${failure.dependencyCallId}), which is waiting for a person's approval.`,
          error_code: "DEPENDENCY_FAILED",
          stage: "execute",
          suggestion: `Call '${failure.name}' again once the '${failure.dependencyTool}' call has been approved and has run.`,
          retryable: false,
        };
      }
      return {
        error: `Tool '${failure.name}' did not run: it depends on '${failure.dependencyTool}' (call ${failure.dependencyCallId}), which failed with ${failure.dependencyCode}.`,
        error_code: "DEPENDENCY_FAILED",
        stage: "execute",
        suggestion: `Fix the '${failure.dependencyTool}' call first, then call '${failure.name}' again.`,
        retryable: false,
      };
    case "approval_required":
      return {
        error: `Tool '${failure.name}' needs a person's approval before it runs; it has not run. Approval ${failure.approvalId} is pending until ${new Date(failure.expiresAt).toISOString()}.`,
        error_code: "APPROVAL_REQUIRED",
        stage: "approval",
        suggestion: `Tell the user that approval ${failure.approvalId} is pending and can be decided at ${failure.url}. Fetch the outcome with GET ${failure.pollPath} (it waits up to 30 s for a decision), or send this same tool call (same id) again in this session; do not make a new call for the same action.`,
        retryable: false,
        approval: { id: failure.approvalId, expires_at: new Date(failure.expiresAt).toISOString(), url: failure.url },
      };
    case "approval_denied":
      return {
        error: `A person denied the call to '${failure.name}' (approval ${failure.approvalId}): ${failure.reason ?? "no reason given"}`,
        error_code: "APPROVAL_DENIED",
        stage: "approval",
        suggestion: "Do not repeat this call; take the reason into account, choose another approach, or ask the user.",
        retryable: false,
      };
    case "approval_expired":
      return {
        error: `Nobody decided approval ${failure.approvalId} for '${failure.name}' before it expired at ${new Date(failure.expiresAt).toISOString()}; the call did not run.`,
        error_code: "APPROVAL_EXPIRED",
        stage: "approval",
        suggestion: "Ask the user whether the action is still wanted; if so, call the tool again (with a new call id) to ask for approval again.",
        retryable: false,
      };
    case "approval_interrupted":
      return {
        error: `The approved call to '${failure.name}' (approval ${failure.approvalId}) was interrupted while running, so whether it took effect is unknown. It was not run a second time.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Check whether the action happened (read its effect) before asking to run it again with a new call id.",
        retryable: false,
      };
    case "approval_unbound":
      return {
        error: `Approval ${failure.approvalId} covers other arguments than '${failure.name}' ended up with (a pre-call hook changed them), so the call did not run.`,
        error_code: "APPROVAL_DENIED",
        stage: "approval",
        suggestion: "Call the tool again with a new call id to ask for approval of these arguments.",
        retryable: false,
      };
    case "call_id_reused":
      return {
        error: `Tool call id '${failure.callId}' was already used in this session for a call of '${failure.firstTool}'${failure.firstTool === failure.name ? " with other arguments" : ""}, so this call of '${failure.name}' did not run.`,
        error_code: "CALL_ID_REUSED",
        stage: "approval",
        suggestion: `Send this request again with a new tool call id; '${failure.callId}' only ever answers with the outcome of its first request.`,
        retryable: false,
      };
    case "remote_tool_error":
      return {
        error: `Tool '${failure.name}' (MCP server '${failure.server}') reported an error: ${failure.detail}`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Read the error, adjust the arguments or use another tool; do not repeat the same call unchanged.",
        retryable: false,
      };
  }
}
