/**
 * The one place where a ToolFailure becomes what the model reads.
 *
 * The body keeps the original's shape (`error` is a string, so readers of Hermes results still
 * work) and adds the gateway envelope: code, stage, the next thing to do, and whether a retry
 * can help.
 */
import { sanitizeErrorText } from "../execution/sanitize-error.ts";
import { approvalEnvelope } from "./approval-envelope.ts";
import { clientInputEnvelope } from "./client-input-envelope.ts";
import type { ErrorEnvelope } from "./error-envelope.ts";
import { exchangeEnvelope } from "./exchange-envelope.ts";
import { overranEnvelope, seconds } from "./overran-envelope.ts";
import type { FieldIssue, ToolFailure } from "./tool-failure.ts";
import { upstreamEnvelope } from "./upstream-envelope.ts";

function describeIssue(issue: FieldIssue): string {
  return `${issue.path === "" ? "the arguments object" : `'${issue.path}'`}: ${issue.message}`;
}

/**
 * Maps a failure to its envelope. The message is sanitised here, once for every kind, because
 * several carry text from outside (an upstream's body, a fetch error, a check's exception).
 */
export function toEnvelope(failure: ToolFailure): ErrorEnvelope {
  const envelope = describeFailure(failure);
  return { ...envelope, error: sanitizeErrorText(envelope.error) };
}

/**
 * Exhaustive, so a new failure kind does not compile until it is mapped. The approval, upstream,
 * token exchange and client input families have their texts in modules of their own, each switch exhaustive over its family.
 */
function describeFailure(failure: ToolFailure): ErrorEnvelope {
  switch (failure.kind) {
    case "malformed_json":
      return {
        error: `Arguments are not valid JSON${failure.position === undefined ? "" : ` (at position ${failure.position})`}: ${failure.detail}`,
        error_code: "INVALID_ARGUMENTS",
        stage: "parse",
        suggestion: 'Send the arguments as one JSON object, for example {"query": "text"}, with double-quoted keys and no trailing text.',
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
    case "arguments_too_deep":
      return {
        error: `Arguments nest deeper than ${failure.maxDepth} levels of objects and arrays (at '${failure.path}').`,
        error_code: "INVALID_ARGUMENTS",
        stage: "parse",
        suggestion: "Send the values flatter, as the tool's schema shows; no tool takes arguments nested this deep.",
        retryable: false,
      };
    case "arguments_too_many_values":
      return {
        error: `Arguments hold more than ${failure.maxValues} values (array elements and object members, counted at every level).`,
        error_code: "INVALID_ARGUMENTS",
        stage: "parse",
        suggestion: "Send fewer values per call: split the work over several calls, or pass bulk data as one string where the tool takes text.",
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
    case "script_failed":
      return {
        error: `Tool '${failure.name}': ${failure.detail}`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion:
          failure.reason === "tool_call_limit"
            ? "Do the work in fewer tool calls per script (loop over results inside one call's answer), or split it over several scripts."
            : "Fix the script (the message names the error, and its console output shows how far it got) and run it again.",
        retryable: false,
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
      if (failure.overran !== undefined) return overranEnvelope(failure, failure.overran.writes);
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
    case "run_interrupted":
      return {
        error: `The call to '${failure.name}' was interrupted while running (agent run ${failure.runId} restarted), so whether it took effect is unknown. It was not run a second time.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Check whether the action happened (read its effect) before calling it again.",
        retryable: false,
      };
    case "own_timeout":
    case "network":
    case "upstream":
    case "remote_tool_error":
    case "api_error":
    case "connection_required":
    case "upstream_link_required":
      return upstreamEnvelope(failure);
    case "token_exchange_failed":
      return exchangeEnvelope(failure);
    case "client_input_needed":
    case "client_answers_too_large":
    case "client_input_unavailable":
      return clientInputEnvelope(failure);
    case "approval_required":
    case "approval_denied":
    case "approval_expired":
    case "approval_interrupted":
    case "approval_unbound":
    case "call_id_reused":
      return approvalEnvelope(failure);
  }
}
