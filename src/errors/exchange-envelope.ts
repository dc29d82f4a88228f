/**
 * What the model reads when a `token_exchange` server's token could not be had (RFC 8693): whose
 * it is to fix decides the code. The caller's sign-in (none, or refused) is PERMISSION_DENIED,
 * as a refusal of this caller; the deployment's setup is TOOL_UNAVAILABLE; a bad or missing
 * answer from the authorization server is UPSTREAM_ERROR, as any upstream's.
 */
import type { ErrorEnvelope } from "./error-envelope.ts";
import type { ToolFailure } from "./tool-failure.ts";

type ExchangeFailure = Extract<ToolFailure, { kind: "token_exchange_failed" }>;

/** OAuth errors that refuse the configuration (toolgate's client, the grant, the target), not the person (RFC 6749 5.2, RFC 8693 2.2.2). */
const ADMIN_ERRORS: ReadonlySet<string> = new Set(["invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_target", "invalid_scope"]);

/** Maps a failed exchange to its envelope (unsanitised: `toEnvelope` sanitises). */
export function exchangeEnvelope(failure: ExchangeFailure): ErrorEnvelope {
  const head = `Tool '${failure.name}' acts as you at MCP server '${failure.server}' through token exchange`;
  const admin = `Tell the user that an admin must fix the token exchange settings of MCP server '${failure.server}' (the error names what); use another tool meanwhile.`;
  switch (failure.problem) {
    case "no_oauth_sign_in":
      return {
        error: `${head}, which needs your toolgate OAuth sign-in, and this call carries none: ${failure.detail}.`,
        error_code: "PERMISSION_DENIED",
        stage: "execute",
        suggestion:
          "Call it from an MCP client signed in to toolgate through OAuth (add toolgate's /mcp URL to the client and sign in when it asks), not with an API key; or tell the user this tool needs that sign-in.",
        retryable: false,
      };
    case "refused":
      if (failure.oauthError !== undefined && ADMIN_ERRORS.has(failure.oauthError)) {
        return { error: `${head}, and ${failure.detail}.`, error_code: "TOOL_UNAVAILABLE", stage: "execute", suggestion: admin, retryable: false };
      }
      return {
        error: `${head}, and ${failure.detail}.`,
        error_code: "PERMISSION_DENIED",
        stage: "execute",
        suggestion:
          "Ask the user to sign in to toolgate again from their MCP client (the sign-in may have expired or been revoked), then call again; if it is refused again, an admin must check that the server's authorization server accepts toolgate's tokens for this user.",
        retryable: false,
      };
    case "not_configured":
    case "not_supported":
      return { error: `${head}, and ${failure.detail}.`, error_code: "TOOL_UNAVAILABLE", stage: "execute", suggestion: admin, retryable: false };
    case "bad_answer":
    case "unreachable":
      return {
        error: `${head}, and ${failure.detail}.`,
        error_code: "UPSTREAM_ERROR",
        stage: "execute",
        suggestion: "The server's authorization server is failing; try again later, or tell the user.",
        retryable: failure.problem === "unreachable",
      };
  }
}
