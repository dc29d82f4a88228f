/**
 * Types only: the request-level failures and the body each becomes (request-failure.ts maps
 * them to HTTP, request-error-body.ts words them).
 */
import type { KeyScope, Role } from "../auth/principal.ts";

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
  | { kind: "forbidden"; required: readonly Role[]; role: Role; scope?: KeyScope }
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
  | { kind: "rebinding_refused"; reason: string }
  | { kind: "model_not_configured"; missing: readonly string[] }
  | { kind: "unknown_model"; name: string; known: readonly string[] }
  | { kind: "model_forbidden"; name: string }
  | { kind: "unknown_run"; id: string }
  | { kind: "unknown_schedule"; id: string }
  | { kind: "run_failed"; runId: string; code: string; message: string }
  | { kind: "run_not_yours"; runId: string }
  | { kind: "no_question"; runId: string; status: string; questionId?: string | undefined }
  | { kind: "unknown_mcp_session"; reason: "malformed" | "not_valid" | "expired" }
  | { kind: "mcp_session_required" }
  | { kind: "unknown_openapi_source"; name: string }
  | { kind: "openapi_spec_refused"; name: string; stage: "spec" | "base_url"; detail: string }
  | { kind: "openapi_spec_unreachable"; name: string; detail: string };

/** Why a sign-in at a remote MCP server (toolgate as its OAuth client) failed. */
export type McpSignInFailure =
  | "not_configured"
  | "discovery_failed"
  | "unknown_state"
  | "link_used"
  | "browser_mismatch"
  | "denied"
  | "missing_code"
  | "exchange_failed"
  /** A per-user connection link opened by a browser signed in as another principal, or outside the chat site. */
  | "wrong_principal";

/** The JSON body of a request-level failure. */
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
