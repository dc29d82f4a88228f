/**
 * What this isolate knows about each remote MCP server between requests (the transport that
 * answered, its session and protocol version, the era it speaks), kept by mcp-client.ts so a
 * call is one round trip after the first.
 */
import type { McpTarget, TransportKind } from "./mcp-target.ts";

/** What an isolate remembers about a server between requests: plain values, never I/O objects. */
export interface Remembered {
  kind?: TransportKind;
  /** initialize succeeded (a stateless server issues no session id, and needs no second one). */
  initialized?: boolean;
  sessionId?: string;
  protocolVersion?: string;
  /** The server offered the modern era on first contact: no session, the envelope on every request. */
  modern?: boolean;
}

export const remembered = new Map<string, Remembered>();
export const rememberKey = (target: Pick<McpTarget, "name" | "url">): string => `${target.name}\n${target.url}`;

/** Forgets what this isolate knows about a server (its config changed or it was removed). */
export function forgetSession(target: Pick<McpTarget, "name" | "url">): void {
  remembered.delete(rememberKey(target));
}
