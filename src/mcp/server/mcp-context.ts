/** Everything one MCP request is answered with: who calls, what it may reach, and the way back. */
import type { Principal } from "../../auth/principal.ts";
import type { GatewayConfig } from "../../config/config.ts";
import type { GatewayParts } from "../../compose.ts";
import type { RequestScope } from "../../pipeline/types.ts";
import type { ToolAccess } from "../../policy/tool-access.ts";
import type { Outbound } from "./client-channel.ts";

export interface McpContext {
  env: Env;
  principal: Principal;
  access: ToolAccess;
  /** Set on /mcp/{toolset}: the virtual server offers only these tools. */
  scope?: { toolset: string; names: ReadonlySet<string> };
  /** The revision the request is read under (MCP-Protocol-Version, else 2025-03-26). */
  protocolVersion: string;
  config: GatewayConfig;
  parts: GatewayParts;
  /** The request's scope, built once; each tools/call is its own session within it. */
  requestScope: RequestScope;
  signal?: AbortSignal;
  waitUntil: (promise: Promise<unknown>) => void;
  /** Messages to the client while the request is open (they switch the response to SSE). */
  outbound: Outbound;
  /** The origin the client reached us at, so a pending approval's page URL is absolute. */
  origin?: string;
}
