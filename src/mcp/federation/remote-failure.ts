/**
 * What a failed exchange with a remote MCP server means for the call, in the pipeline's
 * failure union: the server's timeout is TOOL_TIMEOUT, no answer is a network failure, an HTTP
 * error status or an answer that is not MCP is UPSTREAM_ERROR, a JSON-RPC error is the tool
 * failing (EXECUTION_FAILED), unless it is URLElicitationRequired, a link a person must open
 * first (CONNECTION_REQUIRED, url-elicitation.ts), and a URL the SSRF guard refuses makes the tool unavailable.
 */
import type { ToolFailure } from "../../errors/tool-failure.ts";
import { McpClientError } from "../client/json-rpc.ts";
import { linkRequiredFailure, URL_ELICITATION_REQUIRED } from "./url-elicitation.ts";

/** The failure of `tool` (registry name) on `server` for what the client raised. */
export function remoteFailure(tool: string, server: string, host: string, error: unknown): ToolFailure {
  if (!(error instanceof McpClientError)) {
    return { kind: "handler_threw", name: tool, detail: `MCP server '${server}': ${error instanceof Error ? error.message : String(error)}`, retryable: false };
  }
  switch (error.kind) {
    case "timeout":
      return { kind: "own_timeout", name: tool, detail: `MCP server '${server}' did not answer within its configured timeout`, retryable: false };
    case "aborted":
      return { kind: "own_timeout", name: tool, detail: `the call to MCP server '${server}' was stopped: ${error.message}`, retryable: false };
    case "network":
      return { kind: "network", name: tool, host, detail: `MCP server '${server}': ${error.message}` };
    case "http":
      return { kind: "upstream", name: tool, status: error.code ?? 502, detail: `MCP server '${server}': ${error.message}` };
    case "protocol":
      return { kind: "upstream", name: tool, status: 502, detail: `MCP server '${server}' did not answer valid MCP: ${error.message}` };
    case "rpc":
      return (
        (error.code === URL_ELICITATION_REQUIRED ? linkRequiredFailure(tool, server, error.data) : undefined) ?? {
          kind: "remote_tool_error",
          name: tool,
          server,
          detail: error.message,
        }
      );
    case "refused":
      return { kind: "unavailable", name: tool, reason: error.message };
    case "unauthorized":
      return {
        kind: "unavailable",
        name: tool,
        reason: `MCP server '${server}' refused toolgate's credentials (${error.message}); an admin must sign in again: POST /v1/mcp-servers/${server}/sign-in`,
      };
  }
}

/** Failures that show the server in trouble, which count against its breaker. */
export function countsAgainstServer(error: unknown): boolean {
  if (!(error instanceof McpClientError)) return true;
  return error.kind === "timeout" || error.kind === "network" || error.kind === "protocol" || (error.kind === "http" && (error.code ?? 500) >= 500);
}
