/**
 * Request-level failures (the request itself is wrong, not one of its tool calls), mapped to
 * HTTP in this one place. Bodies share the tool envelope's flat shape: `error` is a sentence,
 * `error_code` a stable code, and `issues` names each bad field.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface RequestIssue {
  path: string;
  message: string;
}

export type RequestFailure =
  | { kind: "malformed_body"; detail: string }
  | { kind: "unsupported_media_type"; received: string | undefined }
  | { kind: "invalid_request"; issues: readonly RequestIssue[] }
  | { kind: "payload_too_large"; limitBytes: number }
  | { kind: "too_many_calls"; count: number; limit: number }
  | { kind: "not_found"; method: string; path: string }
  | { kind: "unknown_tool"; name: string; closeMatches: readonly string[] }
  | { kind: "unknown_toolset"; name: string }
  | { kind: "conflict"; message: string }
  | { kind: "misconfigured"; message: string }
  | { kind: "internal" };

export interface RequestErrorBody {
  error: string;
  error_code: string;
  issues?: readonly RequestIssue[];
  suggestion?: string;
}

function describe(failure: RequestFailure): [ContentfulStatusCode, RequestErrorBody] {
  switch (failure.kind) {
    case "malformed_body":
      return [400, { error: `The request body is not valid JSON: ${failure.detail}`, error_code: "MALFORMED_BODY", suggestion: "Send a JSON object with Content-Type: application/json." }];
    case "unsupported_media_type":
      return [415, { error: `Content-Type must be application/json, got ${failure.received ?? "none"}.`, error_code: "UNSUPPORTED_MEDIA_TYPE", suggestion: "Set the header Content-Type: application/json." }];
    case "invalid_request":
      return [400, { error: `Invalid request: ${failure.issues.map((i) => `${i.path === "" ? "body" : i.path}: ${i.message}`).join("; ")}`, error_code: "INVALID_REQUEST", issues: failure.issues }];
    case "payload_too_large":
      return [413, { error: `The request body is larger than ${failure.limitBytes} bytes.`, error_code: "PAYLOAD_TOO_LARGE", suggestion: "Split the tool calls over several requests." }];
    case "too_many_calls":
      return [413, { error: `A batch may hold at most ${failure.limit} tool calls; this one has ${failure.count}.`, error_code: "TOO_MANY_CALLS", issues: [{ path: "tool_calls", message: `at most ${failure.limit} items` }], suggestion: "Split the tool calls over several requests." }];
    case "not_found":
      return [404, { error: `No route for ${failure.method} ${failure.path}.`, error_code: "NOT_FOUND", suggestion: "See /openapi.json or /docs for the routes." }];
    case "unknown_tool":
      return [404, { error: `Unknown tool: ${failure.name}`, error_code: "UNKNOWN_TOOL", ...(failure.closeMatches.length > 0 ? { suggestion: `Did you mean ${failure.closeMatches.join(" or ")}?` } : {}) }];
    case "unknown_toolset":
      return [404, { error: `Unknown toolset: ${failure.name}`, error_code: "UNKNOWN_TOOLSET", suggestion: "GET /v1/toolsets lists the toolsets." }];
    case "conflict":
      return [409, { error: failure.message, error_code: "CONFLICT" }];
    case "misconfigured":
      return [500, { error: failure.message, error_code: "MISCONFIGURED", suggestion: "Fix the named setting in wrangler.toml [vars] and redeploy." }];
    case "internal":
      return [500, { error: "Internal error; the failure was logged.", error_code: "INTERNAL" }];
  }
}

/** The HTTP response for a request-level failure. */
export function failureResponse(c: Context, failure: RequestFailure): Response {
  const [status, body] = describe(failure);
  return c.json(body, status);
}
