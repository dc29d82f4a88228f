/**
 * Which remote MCP server a client talks to and how it signs in: the federation builds these from
 * its configuration (src/mcp/federation/), the client (mcp-client.ts) only reads them.
 */
import type { McpClientError } from "./json-rpc.ts";

export interface McpTarget {
  /** The server's configured name, for messages. */
  name: string;
  url: string;
  /** Resolved header values (secrets already read). */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** OUTBOUND_ALLOW patterns the SSRF guard lets through. */
  allow: readonly string[];
  /** OAuth for servers that require sign-in: the bearer token to send, renewed on a 401. */
  auth?: McpAuth;
}

/** A token source for one server (src/mcp/federation/server-auth.ts in the Worker). */
export interface McpAuth {
  /** The `Authorization` header value to send now (refreshed first when due), or undefined when there is no sign-in. */
  authorization(signal: AbortSignal): Promise<string | undefined>;
  /**
   * Called once per operation when the server answered 401 (or 403 `insufficient_scope`): true
   * when a new token is ready and the operation is repeated, false when a person must sign in.
   */
  renew(error: McpClientError, signal: AbortSignal): Promise<boolean>;
}

export type TransportKind = "streamable-http" | "sse";
