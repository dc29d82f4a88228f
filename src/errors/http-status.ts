/**
 * The HTTP status of a call answered on its own (`POST /v1/tools/{name}/call`), where there is
 * no batch whose 200 carries each call's outcome. One record over every code, so a new code does
 * not compile until it has a status. The body is the envelope in every case; the status only
 * lets an HTTP client (an OpenAPI tool server, a generated client) branch without reading it.
 */
import type { ErrorCode } from "./tool-failure.ts";

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
  CALL_ID_REUSED: 409,
  TOOL_TIMEOUT: 504,
  // A call answered alone has no batch to depend on; mapped for completeness (RFC 4918 11.4).
  DEPENDENCY_FAILED: 424,
  UPSTREAM_ERROR: 502,
  // The tool ran and reported failure for these arguments: not our bug (500), not the caller's syntax (400).
  EXECUTION_FAILED: 422,
} as const satisfies Record<ErrorCode, number>;

export type ErrorCodeStatus = (typeof ERROR_CODE_STATUS)[ErrorCode];
