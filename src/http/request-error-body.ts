/**
 * The words of each request-level failure: what failed, with which value, and what to do next.
 * request-failure.ts pairs each body with its kind's status.
 */

import { describeForbidden } from "./forbidden-body.ts";
import { remoteSourceErrorBody } from "./remote-source-error-body.ts";
import type { RequestErrorBody, RequestFailure } from "./request-failure-types.ts";

/** The body of a request-level failure; one case per kind, so a new kind cannot compile until it is worded. */
export function requestErrorBody(failure: RequestFailure): RequestErrorBody {
  switch (failure.kind) {
    case "unknown_mcp_server":
    case "mcp_sign_in_failed":
    case "mcp_server_unreachable":
    case "unknown_openapi_source":
    case "openapi_spec_refused":
    case "openapi_spec_unreachable":
      return remoteSourceErrorBody(failure);
    case "malformed_body":
      return {
        error: `The request body is not valid JSON: ${failure.detail}`,
        error_code: "MALFORMED_BODY",
        suggestion: "Send a JSON object with Content-Type: application/json.",
      };
    case "unsupported_media_type":
      return {
        error: `Content-Type must be application/json, got ${failure.received ?? "none"}.`,
        error_code: "UNSUPPORTED_MEDIA_TYPE",
        suggestion: "Set the header Content-Type: application/json.",
      };
    case "invalid_request":
      return {
        error: `Invalid request: ${failure.issues.map((i) => `${i.path === "" ? "body" : i.path}: ${i.message}`).join("; ")}`,
        error_code: "INVALID_REQUEST",
        issues: failure.issues,
      };
    case "payload_too_large":
      return {
        error: `The request body is larger than ${failure.limitBytes} bytes.`,
        error_code: "PAYLOAD_TOO_LARGE",
        suggestion: "Split the tool calls over several requests.",
      };
    case "too_many_calls":
      return {
        error: `A batch may hold at most ${failure.limit} tool calls; this one has ${failure.count}.`,
        error_code: "TOO_MANY_CALLS",
        issues: [{ path: "tool_calls", message: `at most ${failure.limit} items` }],
        suggestion: "Split the tool calls over several requests.",
      };
    case "not_found":
      return { error: `No route for ${failure.method} ${failure.path}.`, error_code: "NOT_FOUND", suggestion: "See /openapi.json or /docs for the routes." };
    case "unauthenticated":
      return describeUnauthenticated(failure);
    case "forbidden":
      return describeForbidden(failure);
    case "unknown_api_key":
      return { error: `No API key has the id '${failure.id}'.`, error_code: "UNKNOWN_API_KEY", suggestion: "GET /v1/keys lists the keys and their ids." };
    case "unknown_tool":
      return {
        error: `Unknown tool: ${failure.name}`,
        error_code: "UNKNOWN_TOOL",
        ...(failure.closeMatches.length > 0 ? { suggestion: `Did you mean ${failure.closeMatches.join(" or ")}?` } : {}),
      };
    case "unknown_toolset":
      return { error: `Unknown toolset: ${failure.name}`, error_code: "UNKNOWN_TOOLSET", suggestion: "GET /v1/toolsets lists the toolsets." };
    case "conflict":
      return { error: failure.message, error_code: "CONFLICT" };
    case "misconfigured":
      return { error: failure.message, error_code: "MISCONFIGURED", suggestion: "Fix the named setting in wrangler.toml [vars] and redeploy." };
    case "internal":
      return { error: "Internal error; the failure was logged.", error_code: "INTERNAL" };
    case "unknown_approval":
      return {
        error: `No approval '${failure.id}' that this key may see in the addressed session.`,
        error_code: "UNKNOWN_APPROVAL",
        suggestion: "Check the id and session_id from the pending call's result; approvers list approvals with GET /v1/approvals.",
      };
    case "approval_decided":
      return {
        error: `Approval '${failure.id}' is already ${failure.status}; the first decision stands.`,
        error_code: "APPROVAL_ALREADY_DECIDED",
        suggestion: "See `approval` for its current state.",
        approval: failure.approval,
      };
    case "unknown_hook":
      return {
        error: `No webhook is registered as '${failure.name}'.`,
        error_code: "UNKNOWN_HOOK",
        suggestion: "Check the payload URL: POST /v1/hooks/<name>, with a name from webhooks/ (the folder the webhooks are defined in).",
      };
    case "hook_refused":
      return describeWebhookRefusal(failure);
    case "unknown_delivery":
      return {
        error: `No webhook delivery has the id '${failure.id}'.`,
        error_code: "UNKNOWN_DELIVERY",
        suggestion: "Use the delivery_id the delivery was answered with; deliveries are kept HOOK_DELIVERY_RETENTION_DAYS.",
      };
    case "unavailable":
      return { error: failure.message, error_code: "SERVICE_UNAVAILABLE", suggestion: `Send it again in ${failure.retryAfterSeconds} s.` };
    case "not_acceptable":
      return { error: `Not Acceptable: the client must accept ${failure.accepts.join(" and ")}.`, error_code: "NOT_ACCEPTABLE" };
    case "method_not_allowed":
      return { error: `Method not allowed: ${failure.reason}.`, error_code: "METHOD_NOT_ALLOWED", suggestion: `Use ${failure.allow.join(" or ")}.` };
    case "unsupported_protocol_version":
      return {
        error: `Bad Request: unsupported MCP-Protocol-Version ${failure.received} (supported: ${failure.supported.join(", ")}).`,
        error_code: "UNSUPPORTED_PROTOCOL_VERSION",
      };
    case "batch_not_supported":
      return {
        error: `Invalid Request: JSON-RPC batches are not part of MCP ${failure.version} (2025-06-18 removed them); send one message per POST.`,
        error_code: "BATCH_NOT_SUPPORTED",
      };
    case "model_not_configured":
      return {
        error: `Agent runs need a model, and none is configured: ${failure.missing.join(", ")} ${failure.missing.length === 1 ? "is" : "are"} unset.`,
        error_code: "MODEL_NOT_CONFIGURED",
        suggestion:
          "Set MODEL_BASE_URL (an OpenAI-compatible endpoint ending in /v1) and MODEL_NAME in [vars], and MODEL_API_KEY with wrangler secret put (any non-empty value for a local server).",
      };
    case "unknown_model":
      return {
        error: `No model is configured as '${failure.name}'.`,
        error_code: "UNKNOWN_MODEL",
        issues: [{ path: "model", message: `one of ${failure.known.join(", ")}` }],
        suggestion: "Leave `model` out for the default model, or name one from MODELS.",
      };
    case "model_forbidden":
      return {
        error: `This API key may not use the model '${failure.name}'.`,
        error_code: "FORBIDDEN",
        suggestion: "Leave `model` out for the default model, or ask an admin to list this key in the model's `keys` (MODELS).",
      };
    case "unknown_run":
      return {
        error: `No run '${failure.id}' that this key may see.`,
        error_code: "UNKNOWN_RUN",
        suggestion: "Use the id POST /v1/runs answered with; GET /v1/runs lists this key's runs.",
      };
    case "unknown_schedule":
      return {
        error: `No schedule '${failure.id}' that this key may see.`,
        error_code: "UNKNOWN_SCHEDULE",
        suggestion: "GET /v1/schedules lists this key's schedules and their ids.",
      };
    case "run_failed":
      return {
        error: `The agent run ${failure.runId} failed: ${failure.message}`,
        error_code: failure.code,
        suggestion: `GET /v1/runs/${failure.runId} shows its transcript and steps; check the model endpoint (MODEL_BASE_URL) if the model failed.`,
      };
    case "run_not_yours":
      return {
        error: `Only the key that started run ${failure.runId} may answer its question.`,
        error_code: "NOT_RUN_OWNER",
        suggestion: "Sign in with the key that started the run (GET /v1/runs/{id} shows it to admins as `key_id` in GET /v1/runs).",
      };
    case "no_question":
      return failure.questionId === undefined
        ? {
            error: `Run ${failure.runId} is not waiting for an answer (it is ${failure.status}).`,
            error_code: "NO_QUESTION",
            suggestion: `GET /v1/runs/${failure.runId} shows its status; only a run that is awaiting_input takes an answer.`,
          }
        : {
            error: `Run ${failure.runId} is waiting on another question now (${failure.questionId}).`,
            error_code: "NO_QUESTION",
            suggestion: `Read the question at GET /v1/runs/${failure.runId} (\`question\`) and answer that one, with its \`question_id\`.`,
          };
    case "rebinding_refused":
      return {
        error: `Forbidden: ${failure.reason} (DNS-rebinding protection). Set MCP_ALLOWED_HOSTS to the names this server is reached by.`,
        error_code: "REBINDING_REFUSED",
      };
    case "unknown_mcp_session":
      return {
        error: `Not Found: the Mcp-Session-Id ${failure.reason === "expired" ? "has expired" : failure.reason === "malformed" ? "is not one this server issues" : "is not valid for this API key"}.`,
        error_code: "UNKNOWN_MCP_SESSION",
        suggestion: "Send initialize again, without Mcp-Session-Id, and use the session id it returns.",
      };
    case "mcp_session_required":
      return {
        error: "Bad Request: DELETE ends an MCP session, so it needs the Mcp-Session-Id header that initialize returned.",
        error_code: "MCP_SESSION_REQUIRED",
      };
  }
}

// Webhook senders are programs, but a person reads their delivery logs: say what to fix.
function describeWebhookRefusal(failure: Extract<RequestFailure, { kind: "hook_refused" }>): RequestErrorBody {
  switch (failure.reason) {
    case "no_secret":
      return {
        error: `This webhook has no secret configured, so every delivery is refused (${failure.detail}).`,
        error_code: "HOOK_NOT_CONFIGURED",
        suggestion: "Set the hook's secret with wrangler secret put.",
      };
    case "stale_timestamp":
      return {
        error: `The delivery's signed timestamp is outside the accepted window: ${failure.detail}.`,
        error_code: "STALE_TIMESTAMP",
        suggestion: "Sign with the current time; check the sender's clock.",
      };
    case "missing_signature":
    case "bad_signature":
      return {
        error: `The delivery's signature is missing or wrong: ${failure.detail}.`,
        error_code: "INVALID_SIGNATURE",
        suggestion: "Sign the raw body with the secret configured for this hook.",
      };
  }
}

function describeUnauthenticated(failure: Extract<RequestFailure, { kind: "unauthenticated" }>): RequestErrorBody {
  const askForKey = "Ask an admin for an API key (POST /v1/keys); keys are shown once, when created.";
  switch (failure.reason) {
    case "missing":
      return { error: "This route needs an API key: send the header Authorization: Bearer <key>.", error_code: "UNAUTHENTICATED", suggestion: askForKey };
    case "malformed":
      return {
        error: "The Authorization header must be 'Bearer <key>' with a non-empty key.",
        error_code: "UNAUTHENTICATED",
        suggestion: "Send Authorization: Bearer <key>.",
      };
    case "unknown_key":
      return { error: "The API key is not valid.", error_code: "UNAUTHENTICATED", suggestion: `Check that the whole key was copied. ${askForKey}` };
    case "revoked_key":
      return {
        error: `The API key was revoked${failure.revokedAt === undefined ? "" : ` at ${failure.revokedAt}`}.`,
        error_code: "UNAUTHENTICATED",
        suggestion: askForKey,
      };
  }
}
