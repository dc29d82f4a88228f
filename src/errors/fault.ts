/**
 * Whose fault a failure is, decided from its kind in one exhaustive switch (a new kind does
 * not compile until someone decides). The caller's: the call itself is wrong (no such tool,
 * arguments that do not parse or validate, a tool call id already used for another request)
 * and sending it again unchanged cannot help; MCP
 * answers these as JSON-RPC errors (server/tools, "Error Handling"). The tool's: everything
 * that happened to a well-formed call (it failed, timed out, was refused by policy or a limit,
 * waits for approval); MCP answers these as results with `isError`, for the model to read.
 */
import type { ToolFailure } from "./tool-failure.ts";

export type Fault = "caller" | "tool";

export function faultOf(failure: ToolFailure): Fault {
  switch (failure.kind) {
    case "malformed_json":
    case "arguments_not_object":
    case "arguments_too_deep":
    case "arguments_too_many_values":
    case "unknown_tool":
    case "invalid_arguments":
    case "call_id_reused":
      return "caller";
    case "outside_toolset":
    case "unavailable":
    case "blocked_by_hook":
    case "handler_threw":
    case "bad_result_type":
    case "timeout":
    case "not_started":
    case "own_timeout":
    case "upstream":
    case "network":
    case "rate_limited":
    case "access_denied":
    case "circuit_open":
    case "dependency_failed":
    case "approval_required":
    case "approval_denied":
    case "approval_expired":
    case "approval_interrupted":
    case "run_interrupted":
    case "approval_unbound":
    case "remote_tool_error":
    case "api_error":
    case "connection_required":
    case "upstream_link_required":
    case "token_exchange_failed":
    case "script_failed":
    case "client_input_needed":
    case "client_input_unavailable":
    case "client_answers_too_large":
      return "tool";
    default: {
      const unmapped: never = failure;
      return unmapped;
    }
  }
}
