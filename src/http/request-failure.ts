/**
 * Request-level failures (the request itself is wrong, not one of its tool calls), mapped to
 * HTTP in this one place. Bodies share the tool envelope's flat shape: `error` is a sentence,
 * `error_code` a stable code, and `issues` names each bad field.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Role } from "../auth/principal.ts";

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
  | { kind: "unauthenticated"; reason: "missing" | "malformed" | "unknown_key" | "revoked_key"; revokedAt?: string }
  | { kind: "forbidden"; required: readonly Role[]; role: Role }
  | { kind: "unknown_api_key"; id: string }
  | { kind: "unknown_tool"; name: string; closeMatches: readonly string[] }
  | { kind: "unknown_toolset"; name: string }
  | { kind: "conflict"; message: string }
  | { kind: "misconfigured"; message: string }
  | { kind: "internal" }
  | { kind: "unknown_approval"; id: string }
  | { kind: "approval_decided"; id: string; status: string; approval: Record<string, unknown> }
  | { kind: "unknown_hook"; name: string }
  | { kind: "hook_refused"; reason: "missing_signature" | "bad_signature" | "stale_timestamp" | "no_secret"; detail: string }
  | { kind: "unknown_delivery"; id: string }
  | { kind: "unavailable"; message: string; retryAfterSeconds: number }
  | { kind: "unknown_mcp_server"; name: string }
  | { kind: "mcp_server_unreachable"; name: string; detail: string };

export interface RequestErrorBody {
  error: string;
  error_code: string;
  issues?: readonly RequestIssue[];
  suggestion?: string;
  /** APPROVAL_ALREADY_DECIDED: the approval as it is now. */
  approval?: Record<string, unknown>;
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
    case "unauthenticated":
      return [401, describeUnauthenticated(failure)];
    case "forbidden":
      return [403, { error: `This route needs the ${failure.required.join(" or ")} role; this API key has the ${failure.role} role.`, error_code: "FORBIDDEN", suggestion: `Use a key with the ${failure.required.join(" or ")} role (an admin creates them with POST /v1/keys).` }];
    case "unknown_api_key":
      return [404, { error: `No API key has the id '${failure.id}'.`, error_code: "UNKNOWN_API_KEY", suggestion: "GET /v1/keys lists the keys and their ids." }];
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
    case "unknown_approval":
      return [404, { error: `No approval '${failure.id}' that this key may see in the addressed session.`, error_code: "UNKNOWN_APPROVAL", suggestion: "Check the id and session_id from the pending call's result; approvers list approvals with GET /v1/approvals." }];
    case "approval_decided":
      return [409, { error: `Approval '${failure.id}' is already ${failure.status}; the first decision stands.`, error_code: "APPROVAL_ALREADY_DECIDED", suggestion: "See `approval` for its current state.", approval: failure.approval }];
    case "unknown_mcp_server":
      return [404, { error: `No MCP server is configured under the name '${failure.name}'.`, error_code: "UNKNOWN_MCP_SERVER", suggestion: "GET /v1/mcp-servers lists the configured servers." }];
    case "mcp_server_unreachable":
      return [502, { error: failure.detail, error_code: "MCP_SERVER_UNREACHABLE", suggestion: `Check that MCP server '${failure.name}' is up and its URL and header secrets are right; its previous tool list stays in use.` }];
    case "unknown_hook":
      return [404, { error: `No webhook is registered as '${failure.name}'.`, error_code: "UNKNOWN_HOOK", suggestion: "Check the payload URL: POST /v1/hooks/<name>, with a name from hooks/." }];
    case "hook_refused":
      return [401, describeWebhookRefusal(failure)];
    case "unknown_delivery":
      return [404, { error: `No webhook delivery has the id '${failure.id}'.`, error_code: "UNKNOWN_DELIVERY", suggestion: "Use the delivery_id the delivery was answered with; deliveries are kept HOOK_DELIVERY_RETENTION_DAYS." }];
    case "unavailable":
      return [503, { error: failure.message, error_code: "SERVICE_UNAVAILABLE", suggestion: `Send it again in ${failure.retryAfterSeconds} s.` }];
  }
}

// Webhook senders are programs, but a person reads their delivery logs: say what to fix.
function describeWebhookRefusal(failure: Extract<RequestFailure, { kind: "hook_refused" }>): RequestErrorBody {
  switch (failure.reason) {
    case "no_secret":
      return { error: `This webhook has no secret configured, so every delivery is refused (${failure.detail}).`, error_code: "HOOK_NOT_CONFIGURED", suggestion: "Set the hook's secret with wrangler secret put." };
    case "stale_timestamp":
      return { error: `The delivery's signed timestamp is outside the accepted window: ${failure.detail}.`, error_code: "STALE_TIMESTAMP", suggestion: "Sign with the current time; check the sender's clock." };
    case "missing_signature":
    case "bad_signature":
      return { error: `The delivery's signature is missing or wrong: ${failure.detail}.`, error_code: "INVALID_SIGNATURE", suggestion: "Sign the raw body with the secret configured for this hook." };
  }
}

function describeUnauthenticated(failure: Extract<RequestFailure, { kind: "unauthenticated" }>): RequestErrorBody {
  const askForKey = "Ask an admin for an API key (POST /v1/keys); keys are shown once, when created.";
  switch (failure.reason) {
    case "missing":
      return { error: "This route needs an API key: send the header Authorization: Bearer <key>.", error_code: "UNAUTHENTICATED", suggestion: askForKey };
    case "malformed":
      return { error: "The Authorization header must be 'Bearer <key>' with a non-empty key.", error_code: "UNAUTHENTICATED", suggestion: "Send Authorization: Bearer <key>." };
    case "unknown_key":
      return { error: "The API key is not valid.", error_code: "UNAUTHENTICATED", suggestion: `Check that the whole key was copied. ${askForKey}` };
    case "revoked_key":
      return { error: `The API key was revoked${failure.revokedAt === undefined ? "" : ` at ${failure.revokedAt}`}.`, error_code: "UNAUTHENTICATED", suggestion: askForKey };
  }
}

/** The HTTP response for a request-level failure. */
export function failureResponse(c: Context, failure: RequestFailure): Response {
  const { status, body, headers } = describeRequestFailure(failure);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, status);
}

/** Status, body and headers of a request-level failure, for doors that wrap the body (MCP: JSON-RPC). */
export function describeRequestFailure(failure: RequestFailure): { status: ContentfulStatusCode; body: RequestErrorBody; headers: Record<string, string> } {
  const [status, body] = describe(failure);
  // RFC 6750 section 3: a 401 names the scheme; error="invalid_token" only when a token was sent.
  if (failure.kind === "unauthenticated") {
    return { status, body, headers: { "WWW-Authenticate": failure.reason === "missing" ? 'Bearer realm="toolgate"' : 'Bearer realm="toolgate", error="invalid_token"' } };
  }
  if (failure.kind === "unavailable") return { status, body, headers: { "Retry-After": String(failure.retryAfterSeconds) } };
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
export function validationHook(result: { success: true } | { success: false; error: { issues: readonly ValidationIssue[] } }, c: Context): Response | undefined {
  if (result.success) return undefined;
  return failureResponse(c, { kind: "invalid_request", issues: result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })) });
}
