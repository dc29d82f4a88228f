/** Everything one MCP request is answered with: who calls, the request's scope, and the way back. */
import type { GatewayParts } from "../../compose.ts";
import type { KeyScope } from "../../pipeline/types.ts";
import type { Outbound } from "./client-channel.ts";
import type { ModernEnvelope } from "./modern-envelope.ts";

export interface McpContext {
  /**
   * The request's scope, built once: env, config, the calling key and its access and, on /mcp/{toolset}, the
   * toolset the virtual server offers (`allowedTools`). Without an MCP session, each tools/call runs as a session of its own within it.
   */
  scope: KeyScope;
  /** The revision the request is read under (MCP-Protocol-Version, else 2025-03-26). */
  protocolVersion: string;
  parts: GatewayParts;
  /** Messages to the client while the request is open (they switch the response to SSE). */
  outbound: Outbound;
  /**
   * The request carries an MCP session id: its tools/calls share the scope's approvals session,
   * and a call re-sent with the same arguments gets the outcome of the one approved before.
   */
  inSession: boolean;
  /** A modern-era request (2026-07-28): its envelope; undefined on the 2025 lanes. */
  modern: ModernEnvelope | undefined;
}
