/**
 * How a finished call's failure shows at every door, in one module: the HTTP status of a call
 * answered alone, the provider messages' error flags (Anthropic `is_error`, Gemini `error`), MCP's
 * choice between a JSON-RPC error and an `isError` result, a webhook delivery's status, and the
 * audit log's status. Each is decided from the outcome's typed fields (`errorCode`, `envelope`,
 * `fault`, `status`), never from its text, and each table is exhaustive over ErrorCode, so a new
 * code does not compile until every door has an answer for it. What the model reads is the same
 * everywhere: the envelope `errors/envelope.ts` wrote, whose fault `errors/fault.ts` decided.
 */
import type { AuditStatus } from "../audit/audit-record.ts";
import type { ErrorEnvelope } from "../errors/error-envelope.ts";
import type { Fault } from "../errors/fault.ts";
import type { ErrorCode } from "../errors/tool-failure.ts";
import { RPC_INVALID_PARAMS, type RpcError } from "../mcp/server/json-rpc.ts";

/** The fields of an outcome the doors' failure shapes read. */
export interface FailureFields {
  status: string;
  errorCode?: ErrorCode | undefined;
  envelope?: ErrorEnvelope | undefined;
  fault?: Fault | undefined;
}

/**
 * The HTTP status of a call answered on its own (`POST /v1/tools/{name}/call`), where there is
 * no batch whose 200 carries each call's outcome. The body is the envelope in every case; the
 * status only lets an HTTP client (an OpenAPI tool server, a generated client) branch without
 * reading it.
 */
export const ERROR_CODE_STATUS = {
  UNKNOWN_TOOL: 404,
  INVALID_ARGUMENTS: 400,
  TOOL_UNAVAILABLE: 503,
  PERMISSION_DENIED: 403,
  RATE_LIMITED: 429,
  // Accepted, not run: the call waits for a person. Not an error, so clients that treat any
  // 4xx as a dead end still hand the model the envelope that says where approval is decided.
  APPROVAL_REQUIRED: 202,
  APPROVAL_DENIED: 403,
  APPROVAL_EXPIRED: 409,
  // Refused until the person connects their own account; 401 would read as toolgate's own key failing.
  CONNECTION_REQUIRED: 403,
  CALL_ID_REUSED: 409,
  TOOL_TIMEOUT: 504,
  // A call answered alone has no batch to depend on; mapped for completeness (RFC 4918 11.4).
  DEPENDENCY_FAILED: 424,
  UPSTREAM_ERROR: 502,
  // The tool ran and reported failure for these arguments: not our bug (500), not the caller's syntax (400).
  EXECUTION_FAILED: 422,
} as const satisfies Record<ErrorCode, number>;

export type ErrorCodeStatus = (typeof ERROR_CODE_STATUS)[ErrorCode];

/** The status of a call answered alone: 200, its code's, or 500 for a failure with no code (none is expected). */
export function httpStatusOf(outcome: FailureFields): 200 | ErrorCodeStatus | 500 {
  if (outcome.status === "ok") return 200;
  return outcome.errorCode === undefined ? 500 : ERROR_CODE_STATUS[outcome.errorCode];
}

/**
 * Whether a provider's tool message marks the call failed (Anthropic `is_error`, Gemini's
 * `error` over `output`): anything but a result, a pending approval included, since the model
 * must not read it as the tool's answer.
 */
export function isFailedMessage(outcome: Pick<FailureFields, "status">): boolean {
  return outcome.status !== "ok";
}

/** A failed call's `tools/call` answer over MCP (server/tools, "Error Handling"). */
export type McpFailureAnswer = { error: RpcError } | { result: { content: { type: "text"; text: string }[]; isError: true } };

/**
 * A caller's mistake (an unknown tool, invalid arguments, a reused call id) is a JSON-RPC error;
 * anything that happened to a well-formed call is a result with `isError`, whose text carries
 * the envelope's message and suggestion for the model. A tool's own `toolError(...)` text (no
 * envelope) passes through as the tool wrote it. Pending approvals are the MCP door's own
 * answer (mcp/server/call-result.ts): an MCP call cannot be sent again to read its outcome.
 */
export function mcpFailureOf(outcome: FailureFields & { content: string }): McpFailureAnswer {
  const envelope = outcome.envelope;
  if (envelope === undefined) return { result: { content: [{ type: "text", text: outcome.content }], isError: true } };
  if (outcome.fault === "caller") return { error: { code: RPC_INVALID_PARAMS, message: `${envelope.error} ${envelope.suggestion}`, data: envelope } };
  return { result: { content: [{ type: "text", text: `${envelope.error}\n${envelope.suggestion}` }], isError: true } };
}

/**
 * A webhook delivery waits for approval while any of its calls does; otherwise it is done,
 * errors and all. A settled call keeps its `approval` (which approval decided it), so only the
 * status counts.
 */
export function deliveryStatusOf(results: readonly Pick<FailureFields, "status">[]): "done" | "awaiting_approval" {
  return results.some((r) => r.status === "pending_approval") ? "awaiting_approval" : "done";
}

/** The audit status an outcome implies (`approved`: the call ran after a person approved it). */
export function auditStatusOf(outcome: Pick<FailureFields, "errorCode" | "envelope">, approved = false): AuditStatus {
  const code: ErrorCode | undefined = outcome.errorCode;
  switch (code) {
    case undefined:
      return approved ? "approved" : "ok";
    case "TOOL_TIMEOUT":
      return "timed_out";
    case "PERMISSION_DENIED":
      return outcome.envelope?.stage === "policy" || outcome.envelope?.stage === "pre_hook" ? "blocked" : "error";
    case "APPROVAL_REQUIRED":
      return "pending_approval";
    case "APPROVAL_DENIED":
      return "denied";
    case "APPROVAL_EXPIRED":
      return "expired";
    case "UNKNOWN_TOOL":
    case "INVALID_ARGUMENTS":
    case "CALL_ID_REUSED":
    case "TOOL_UNAVAILABLE":
    case "CONNECTION_REQUIRED":
    case "RATE_LIMITED":
    case "DEPENDENCY_FAILED":
    case "UPSTREAM_ERROR":
    case "EXECUTION_FAILED":
      return "error";
    default: {
      const unmapped: never = code;
      return unmapped;
    }
  }
}
