/**
 * The words of the failures of routes that manage where remote tools come from: remote MCP
 * servers (and toolgate's sign-in at them) and OpenAPI sources. request-error-body.ts hands
 * these kinds here, so each family's wording sits together.
 */
import type { McpSignInFailure, RequestErrorBody, RequestFailure } from "./request-failure-types.ts";

export type RemoteSourceFailure = Extract<
  RequestFailure,
  {
    kind:
      | "unknown_mcp_server"
      | "mcp_sign_in_failed"
      | "mcp_server_unreachable"
      | "unknown_openapi_source"
      | "openapi_spec_refused"
      | "openapi_spec_unreachable";
  }
>;

const SIGN_IN_SUGGESTION: Record<McpSignInFailure, string> = {
  not_configured: "Set the MCP_TOKEN_KEY secret, then POST /v1/mcp-servers/{name}/sign-in again.",
  discovery_failed:
    "Check the server's URL and that its authorization server is reachable (OUTBOUND_ALLOW for private hosts); the message names the step that failed.",
  unknown_state: "The sign-in is unknown or older than 10 minutes: start a new one with POST /v1/mcp-servers/{name}/sign-in.",
  link_used: "Each sign-in link opens once: start a new one with POST /v1/mcp-servers/{name}/sign-in.",
  browser_mismatch: "Finish the sign-in in the browser that opened the sign-in link, or start a new one.",
  denied: "The authorization server did not grant access; start a new sign-in and approve it there.",
  missing_code: "The authorization server sent no code; start a new sign-in with POST /v1/mcp-servers/{name}/sign-in.",
  exchange_failed: "The authorization server refused the code; start a new sign-in with POST /v1/mcp-servers/{name}/sign-in.",
  wrong_principal:
    "A connection link opens only for the key it was made for: sign in to the chat page with that key and open the link again, or ask for a new link with POST /v1/connections/{server}/reconnect.",
};

export function remoteSourceErrorBody(failure: RemoteSourceFailure): RequestErrorBody {
  switch (failure.kind) {
    case "unknown_mcp_server":
      return {
        error: `No MCP server is configured under the name '${failure.name}'.`,
        error_code: "UNKNOWN_MCP_SERVER",
        suggestion: "GET /v1/mcp-servers lists the configured servers.",
      };
    case "mcp_sign_in_failed":
      return { error: failure.detail, error_code: "MCP_SIGN_IN_FAILED", reason: failure.reason, suggestion: SIGN_IN_SUGGESTION[failure.reason] };
    case "mcp_server_unreachable":
      return {
        error: failure.detail,
        error_code: "MCP_SERVER_UNREACHABLE",
        suggestion: `Check that MCP server '${failure.name}' is up and its URL and header secrets are right; its previous tool list stays in use.`,
      };
    case "unknown_openapi_source":
      return {
        error: `No OpenAPI source is configured under the name '${failure.name}'.`,
        error_code: "UNKNOWN_OPENAPI_SOURCE",
        suggestion: "GET /v1/openapi-sources lists the runtime sources; build-time ones are the files in apis/.",
      };
    case "openapi_spec_refused":
      return {
        error: `OpenAPI source '${failure.name}': ${failure.detail}.`,
        error_code: "OPENAPI_SPEC_REFUSED",
        suggestion:
          failure.stage === "base_url"
            ? "Give `base_url`: a public http(s) URL the operations' paths are appended to."
            : "Check that `spec.url` serves an OpenAPI 3.0, 3.1 or Swagger 2.0 document (JSON or YAML) whose $refs all resolve inside it; docs/openapi-sources.md lists the caps.",
      };
    case "openapi_spec_unreachable":
      return {
        error: `OpenAPI source '${failure.name}': ${failure.detail}.`,
        error_code: "OPENAPI_SPEC_UNREACHABLE",
        suggestion: "Check that `spec.url` is up and public; a source that already exists keeps serving its pinned spec.",
      };
  }
}
