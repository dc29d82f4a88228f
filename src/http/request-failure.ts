/**
 * Request-level failures (the request itself is wrong, not one of its tool calls), mapped to
 * HTTP in this one place. Bodies share the tool envelope's flat shape: `error` is a sentence,
 * `error_code` a stable code, and `issues` names each bad field.
 */

import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { ERROR_CODE_VARIABLE } from "../tracing/request-log.ts";
import { requestErrorBody } from "./request-error-body.ts";
import type { RequestErrorBody, RequestFailure, RequestIssue } from "./request-failure-types.ts";
import type { RequestErrorWire } from "./schemas.ts";

export type { McpSignInFailure, RequestErrorBody, RequestFailure, RequestIssue } from "./request-failure-types.ts";

/**
 * The one status of each failure kind. `describeRequestFailure` answers with it and `failureResponse` is typed
 * by it, so a route that may return a status it does not declare fails to compile.
 */
export const REQUEST_FAILURE_STATUS = {
  malformed_body: 400,
  unsupported_media_type: 415,
  invalid_request: 400,
  payload_too_large: 413,
  too_many_calls: 413,
  not_found: 404,
  unauthenticated: 401,
  forbidden: 403,
  unknown_api_key: 404,
  unknown_tool: 404,
  unknown_toolset: 404,
  conflict: 409,
  misconfigured: 500,
  internal: 500,
  unknown_approval: 404,
  approval_decided: 409,
  unknown_hook: 404,
  hook_refused: 401,
  unknown_delivery: 404,
  unavailable: 503,
  unknown_mcp_server: 404,
  mcp_server_unreachable: 502,
  mcp_sign_in_failed: 400,
  not_acceptable: 406,
  method_not_allowed: 405,
  unsupported_protocol_version: 400,
  batch_not_supported: 400,
  rebinding_refused: 403,
  model_not_configured: 503,
  unknown_model: 400,
  model_forbidden: 403,
  unknown_run: 404,
  unknown_schedule: 404,
  run_failed: 502,
  run_not_yours: 403,
  no_question: 409,
  unknown_mcp_session: 404,
  mcp_session_required: 400,
  unknown_openapi_source: 404,
  openapi_spec_refused: 422,
  openapi_spec_unreachable: 502,
} as const satisfies Record<RequestFailure["kind"], ContentfulStatusCode>;

export type RequestFailureStatus<K extends RequestFailure["kind"]> = (typeof REQUEST_FAILURE_STATUS)[K];

/** APPROVAL_ALREADY_DECIDED carries the approval, so its body is typed with the approval's own type. */
type FailureBody<F extends RequestFailure> = F extends { kind: "approval_decided"; approval: infer A }
  ? RequestErrorWire & { error_code: "APPROVAL_ALREADY_DECIDED"; suggestion: string; approval: A }
  : RequestErrorWire;

/**
 * What `failureResponse` returns for a failure: a JSON response with exactly its kind's status,
 * which an OpenAPI route accepts only when it declares that status. Distributes over a union of
 * failures, so a route passing "this or that" must declare both statuses.
 */
export type FailureResponse<F extends RequestFailure> = F extends RequestFailure
  ? Response & TypedResponse<JSONParsed<FailureBody<F>>, RequestFailureStatus<F["kind"]>, "json">
  : never;

/**
 * The HTTP response for a request-level failure.
 *
 * @example
 * if (info === undefined) return failureResponse(c, { kind: "unknown_toolset", name });
 */
export function failureResponse<F extends RequestFailure>(c: Context, failure: F): FailureResponse<F> {
  const { status, body, headers } = describeRequestFailure(failure);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  // For the request's log line (src/tracing/request-log.ts).
  c.set(ERROR_CODE_VARIABLE, body.error_code);
  // The one cast of the route types: status comes from REQUEST_FAILURE_STATUS[failure.kind] and the
  // body from requestErrorBody(), whose shapes errorBodySchema() (and the approval conflict) document; TS
  // cannot follow a generic kind through the switch in requestErrorBody().
  return c.json(body, status) as FailureResponse<F>;
}

/** Status, body and headers of a request-level failure, for doors that wrap the body (MCP: JSON-RPC). */
export function describeRequestFailure(failure: RequestFailure): { status: ContentfulStatusCode; body: RequestErrorBody; headers: Record<string, string> } {
  const status = REQUEST_FAILURE_STATUS[failure.kind];
  const body = requestErrorBody(failure);
  // RFC 6750 section 3: a 401 names the scheme; error="invalid_token" only when a token was sent.
  if (failure.kind === "unauthenticated") {
    return {
      status,
      body,
      headers: { "WWW-Authenticate": failure.reason === "missing" ? 'Bearer realm="toolgate"' : 'Bearer realm="toolgate", error="invalid_token"' },
    };
  }
  if (failure.kind === "unavailable") return { status, body, headers: { "Retry-After": String(failure.retryAfterSeconds) } };
  // RFC 9110 section 15.5.6: a 405 lists the methods the resource does take.
  if (failure.kind === "method_not_allowed") return { status, body, headers: { Allow: failure.allow.join(", ") } };
  return { status, body, headers: {} };
}

/** Zod's issue shape, as much of it as a request error needs. */
interface ValidationIssue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * The defaultHook of every OpenAPIHono app: a request that fails its route's zod schema gets
 * INVALID_REQUEST naming each field, never Hono's default answer.
 */
export function validationHook(
  result: { success: true } | { success: false; error: { issues: readonly ValidationIssue[] } },
  c: Context,
): Response | undefined {
  return result.success ? undefined : invalidRequest(c, result.error.issues);
}

/** INVALID_REQUEST naming each field zod refused, for a route that checks its own body (json-body.ts). */
export function invalidRequest(c: Context, issues: readonly ValidationIssue[]): FailureResponse<{ kind: "invalid_request"; issues: RequestIssue[] }> {
  return failureResponse(c, { kind: "invalid_request", issues: issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })) });
}
