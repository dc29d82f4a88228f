/**
 * Request-level failures (the request itself is wrong, not one of its tool calls), mapped to
 * HTTP in this one place. Bodies share the tool envelope's flat shape: `error` is a sentence,
 * `error_code` a stable code, and `issues` names each bad field.
 */
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { Role } from "../auth/principal.ts";
import type { RequestErrorWire } from "./schemas.ts";

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
  | { kind: "mcp_server_unreachable"; name: string; detail: string }
  | { kind: "mcp_sign_in_failed"; reason: McpSignInFailure; detail: string }
  | { kind: "not_acceptable"; accepts: readonly string[] }
  | { kind: "method_not_allowed"; allow: readonly string[]; reason: string }
  | { kind: "unsupported_protocol_version"; received: string; supported: readonly string[] }
  | { kind: "batch_not_supported"; version: string }
  | { kind: "rebinding_refused"; reason: string };

/** Why a sign-in at a remote MCP server (toolgate as its OAuth client) failed. */
export type McpSignInFailure = "not_configured" | "discovery_failed" | "unknown_state" | "link_used" | "browser_mismatch" | "denied" | "missing_code" | "exchange_failed";

const SIGN_IN_SUGGESTION: Record<McpSignInFailure, string> = {
  not_configured: "Set the MCP_TOKEN_KEY secret, then POST /v1/mcp-servers/{name}/sign-in again.",
  discovery_failed: "Check the server's URL and that its authorization server is reachable (OUTBOUND_ALLOW for private hosts); the message names the step that failed.",
  unknown_state: "The sign-in is unknown or older than 10 minutes: start a new one with POST /v1/mcp-servers/{name}/sign-in.",
  link_used: "Each sign-in link opens once: start a new one with POST /v1/mcp-servers/{name}/sign-in.",
  browser_mismatch: "Finish the sign-in in the browser that opened the sign-in link, or start a new one.",
  denied: "The authorization server did not grant access; start a new sign-in and approve it there.",
  missing_code: "The authorization server sent no code; start a new sign-in with POST /v1/mcp-servers/{name}/sign-in.",
  exchange_failed: "The authorization server refused the code; start a new sign-in with POST /v1/mcp-servers/{name}/sign-in.",
};

/**
 * The one status of each failure kind. `describe` answers with it and `failureResponse` is typed
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
} as const satisfies Record<RequestFailure["kind"], ContentfulStatusCode>;

export type RequestFailureStatus<K extends RequestFailure["kind"]> = (typeof REQUEST_FAILURE_STATUS)[K];

export interface RequestErrorBody {
  error: string;
  error_code: string;
  issues?: readonly RequestIssue[];
  suggestion?: string;
  /** APPROVAL_ALREADY_DECIDED: the approval as it is now. */
  approval?: Record<string, unknown>;
  /** MCP_SIGN_IN_FAILED: which step or check failed. */
  reason?: McpSignInFailure;
}

function describe(failure: RequestFailure): RequestErrorBody {
  switch (failure.kind) {
    case "malformed_body":
      return { error: `The request body is not valid JSON: ${failure.detail}`, error_code: "MALFORMED_BODY", suggestion: "Send a JSON object with Content-Type: application/json." };
    case "unsupported_media_type":
      return { error: `Content-Type must be application/json, got ${failure.received ?? "none"}.`, error_code: "UNSUPPORTED_MEDIA_TYPE", suggestion: "Set the header Content-Type: application/json." };
    case "invalid_request":
      return { error: `Invalid request: ${failure.issues.map((i) => `${i.path === "" ? "body" : i.path}: ${i.message}`).join("; ")}`, error_code: "INVALID_REQUEST", issues: failure.issues };
    case "payload_too_large":
      return { error: `The request body is larger than ${failure.limitBytes} bytes.`, error_code: "PAYLOAD_TOO_LARGE", suggestion: "Split the tool calls over several requests." };
    case "too_many_calls":
      return { error: `A batch may hold at most ${failure.limit} tool calls; this one has ${failure.count}.`, error_code: "TOO_MANY_CALLS", issues: [{ path: "tool_calls", message: `at most ${failure.limit} items` }], suggestion: "Split the tool calls over several requests." };
    case "not_found":
      return { error: `No route for ${failure.method} ${failure.path}.`, error_code: "NOT_FOUND", suggestion: "See /openapi.json or /docs for the routes." };
    case "unauthenticated":
      return describeUnauthenticated(failure);
    case "forbidden":
      return { error: `This route needs the ${failure.required.join(" or ")} role; this API key has the ${failure.role} role.`, error_code: "FORBIDDEN", suggestion: `Use a key with the ${failure.required.join(" or ")} role (an admin creates them with POST /v1/keys).` };
    case "unknown_api_key":
      return { error: `No API key has the id '${failure.id}'.`, error_code: "UNKNOWN_API_KEY", suggestion: "GET /v1/keys lists the keys and their ids." };
    case "unknown_tool":
      return { error: `Unknown tool: ${failure.name}`, error_code: "UNKNOWN_TOOL", ...(failure.closeMatches.length > 0 ? { suggestion: `Did you mean ${failure.closeMatches.join(" or ")}?` } : {}) };
    case "unknown_toolset":
      return { error: `Unknown toolset: ${failure.name}`, error_code: "UNKNOWN_TOOLSET", suggestion: "GET /v1/toolsets lists the toolsets." };
    case "conflict":
      return { error: failure.message, error_code: "CONFLICT" };
    case "misconfigured":
      return { error: failure.message, error_code: "MISCONFIGURED", suggestion: "Fix the named setting in wrangler.toml [vars] and redeploy." };
    case "internal":
      return { error: "Internal error; the failure was logged.", error_code: "INTERNAL" };
    case "unknown_approval":
      return { error: `No approval '${failure.id}' that this key may see in the addressed session.`, error_code: "UNKNOWN_APPROVAL", suggestion: "Check the id and session_id from the pending call's result; approvers list approvals with GET /v1/approvals." };
    case "approval_decided":
      return { error: `Approval '${failure.id}' is already ${failure.status}; the first decision stands.`, error_code: "APPROVAL_ALREADY_DECIDED", suggestion: "See `approval` for its current state.", approval: failure.approval };
    case "unknown_mcp_server":
      return { error: `No MCP server is configured under the name '${failure.name}'.`, error_code: "UNKNOWN_MCP_SERVER", suggestion: "GET /v1/mcp-servers lists the configured servers." };
    case "mcp_sign_in_failed":
      return { error: failure.detail, error_code: "MCP_SIGN_IN_FAILED", reason: failure.reason, suggestion: SIGN_IN_SUGGESTION[failure.reason] };
    case "mcp_server_unreachable":
      return { error: failure.detail, error_code: "MCP_SERVER_UNREACHABLE", suggestion: `Check that MCP server '${failure.name}' is up and its URL and header secrets are right; its previous tool list stays in use.` };
    case "unknown_hook":
      return { error: `No webhook is registered as '${failure.name}'.`, error_code: "UNKNOWN_HOOK", suggestion: "Check the payload URL: POST /v1/hooks/<name>, with a name from webhooks/ (the folder the webhooks are defined in)." };
    case "hook_refused":
      return describeWebhookRefusal(failure);
    case "unknown_delivery":
      return { error: `No webhook delivery has the id '${failure.id}'.`, error_code: "UNKNOWN_DELIVERY", suggestion: "Use the delivery_id the delivery was answered with; deliveries are kept HOOK_DELIVERY_RETENTION_DAYS." };
    case "unavailable":
      return { error: failure.message, error_code: "SERVICE_UNAVAILABLE", suggestion: `Send it again in ${failure.retryAfterSeconds} s.` };
    case "not_acceptable":
      return { error: `Not Acceptable: the client must accept ${failure.accepts.join(" and ")}.`, error_code: "NOT_ACCEPTABLE" };
    case "method_not_allowed":
      return { error: `Method not allowed: ${failure.reason}.`, error_code: "METHOD_NOT_ALLOWED", suggestion: `Use ${failure.allow.join(" or ")}.` };
    case "unsupported_protocol_version":
      return { error: `Bad Request: unsupported MCP-Protocol-Version ${failure.received} (supported: ${failure.supported.join(", ")}).`, error_code: "UNSUPPORTED_PROTOCOL_VERSION" };
    case "batch_not_supported":
      return { error: `Invalid Request: JSON-RPC batches are not part of MCP ${failure.version} (2025-06-18 removed them); send one message per POST.`, error_code: "BATCH_NOT_SUPPORTED" };
    case "rebinding_refused":
      return { error: `Forbidden: ${failure.reason} (DNS-rebinding protection). Set MCP_ALLOWED_HOSTS to the names this server is reached by.`, error_code: "REBINDING_REFUSED" };
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

/** APPROVAL_ALREADY_DECIDED carries the approval, so its body is typed with the approval's own type. */
type FailureBody<F extends RequestFailure> = F extends { kind: "approval_decided"; approval: infer A } ? RequestErrorWire & { error_code: "APPROVAL_ALREADY_DECIDED"; suggestion: string; approval: A } : RequestErrorWire;

/**
 * What `failureResponse` returns for a failure: a JSON response with exactly its kind's status,
 * which an OpenAPI route accepts only when it declares that status. Distributes over a union of
 * failures, so a route passing "this or that" must declare both statuses.
 */
export type FailureResponse<F extends RequestFailure> = F extends RequestFailure ? Response & TypedResponse<JSONParsed<FailureBody<F>>, RequestFailureStatus<F["kind"]>, "json"> : never;

/**
 * The HTTP response for a request-level failure.
 *
 * @example
 * if (info === undefined) return failureResponse(c, { kind: "unknown_toolset", name });
 */
export function failureResponse<F extends RequestFailure>(c: Context, failure: F): FailureResponse<F> {
  const { status, body, headers } = describeRequestFailure(failure);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  // The one cast of the route types: status comes from REQUEST_FAILURE_STATUS[failure.kind] and the
  // body from describe(), whose shapes ErrorBodySchema (and the approval conflict) document; TS
  // cannot follow a generic kind through the switch in describe().
  return c.json(body, status) as FailureResponse<F>;
}

/** Status, body and headers of a request-level failure, for doors that wrap the body (MCP: JSON-RPC). */
export function describeRequestFailure(failure: RequestFailure): { status: ContentfulStatusCode; body: RequestErrorBody; headers: Record<string, string> } {
  const status = REQUEST_FAILURE_STATUS[failure.kind];
  const body = describe(failure);
  // RFC 6750 section 3: a 401 names the scheme; error="invalid_token" only when a token was sent.
  if (failure.kind === "unauthenticated") {
    return { status, body, headers: { "WWW-Authenticate": failure.reason === "missing" ? 'Bearer realm="toolgate"' : 'Bearer realm="toolgate", error="invalid_token"' } };
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
export function validationHook(result: { success: true } | { success: false; error: { issues: readonly ValidationIssue[] } }, c: Context): Response | undefined {
  if (result.success) return undefined;
  return failureResponse(c, { kind: "invalid_request", issues: result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })) });
}
