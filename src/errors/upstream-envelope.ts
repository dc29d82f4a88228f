/**
 * What the model reads when a tool's upstream (an HTTP API or a remote MCP server) failed it:
 * no answer in the tool's own time, no connection, an error status, or an error result.
 */
import type { ErrorEnvelope } from "./error-envelope.ts";
import { RETRYABLE_STATUSES } from "./retryable-statuses.ts";
import type { ToolFailure } from "./tool-failure.ts";

/** The failures a tool's upstream caused. */
export type UpstreamFailure = Extract<
  ToolFailure,
  { kind: "own_timeout" | "network" | "upstream" | "remote_tool_error" | "api_error" | "connection_required" | "upstream_link_required" }
>;

/**
 * Maps an upstream failure to its envelope (unsanitised: `toEnvelope` sanitises every kind, and
 * these carry the upstream's text). Exhaustive over the family.
 */
export function upstreamEnvelope(failure: UpstreamFailure): ErrorEnvelope {
  switch (failure.kind) {
    case "own_timeout":
      return {
        error: `Tool '${failure.name}' gave up waiting on its upstream: ${failure.detail}`,
        error_code: "TOOL_TIMEOUT",
        stage: "execute",
        suggestion: "Narrow the request and call again, or try later.",
        retryable: failure.retryable,
      };
    case "network":
      return {
        error: `Tool '${failure.name}' could not reach ${failure.host}: ${failure.detail}`,
        error_code: "UPSTREAM_ERROR",
        stage: "execute",
        suggestion: "The upstream may be down; try again later or use another source.",
        retryable: true,
      };
    case "upstream":
      return {
        error: `Tool '${failure.name}' got HTTP ${failure.status} from its upstream: ${failure.detail}`,
        error_code: failure.status === 429 ? "RATE_LIMITED" : "UPSTREAM_ERROR",
        stage: "execute",
        suggestion:
          failure.retryAfterMs === undefined
            ? "Wait a little before calling this tool again, or use another source."
            : `Wait ${Math.ceil(failure.retryAfterMs / 1000)}s before calling this tool again.`,
        retryable: RETRYABLE_STATUSES.has(failure.status),
        ...(failure.retryAfterMs === undefined ? {} : { retry_after_ms: failure.retryAfterMs }),
      };
    case "remote_tool_error":
      return {
        error: `Tool '${failure.name}' (MCP server '${failure.server}') reported an error: ${failure.detail}`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Read the error, adjust the arguments or use another tool; do not repeat the same call unchanged.",
        retryable: false,
      };
    case "api_error":
      return {
        error: `Tool '${failure.name}' (${failure.operation}) got HTTP ${failure.status} from the API: ${failure.detail}`,
        error_code: "UPSTREAM_ERROR",
        stage: "execute",
        suggestion: failure.fix,
        retryable: failure.retryable,
      };
    case "connection_required": {
      const label = failure.label ?? `MCP server '${failure.server}'`;
      return {
        error: `Tool '${failure.name}' acts as you at ${label}, and ${failure.reason}.`,
        error_code: "CONNECTION_REQUIRED",
        stage: "execute",
        suggestion:
          failure.url === undefined
            ? `Ask the user to connect their account at ${label} (POST /v1/connections/${failure.server}/reconnect gives a link), then call again.`
            : `Ask the user to open ${failure.url} in their browser (signed in to toolgate's chat page with the same key), within ${Math.round(((failure.expiresAt ?? 0) - Date.now()) / 60_000)} minutes and once, to connect their own account; then call the tool again.`,
        retryable: true,
        connection: {
          server: failure.server,
          url: failure.url ?? null,
          expires_at: failure.expiresAt === undefined ? null : new Date(failure.expiresAt).toISOString(),
        },
      };
    }
    // CONNECTION_REQUIRED, as for toolgate's own connect link: to the caller it is the same step (a
    // person opens a link, then the call is made again), so every door already answers it.
    case "upstream_link_required":
      return {
        error: `Tool '${failure.name}': MCP server '${failure.server}' needs a person to open ${failure.url} before the call can go on ("${failure.message}").`,
        error_code: "CONNECTION_REQUIRED",
        stage: "execute",
        suggestion: "Ask the user to open the link in their browser and finish there; then call the tool again.",
        retryable: true,
        connection: { server: failure.server, url: failure.url, expires_at: null, elicitation_id: failure.elicitationId },
      };
  }
}
