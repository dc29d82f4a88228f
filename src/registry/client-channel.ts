/**
 * The way back from a running handler to the caller (ToolContext.client in types.ts): MCP's
 * progress, logging and client requests. Apart from types.ts because the MCP server's doors
 * implement it and read its log levels without needing the rest of a tool's shapes.
 */

/** Log levels of MCP's logging utility (RFC 5424 severities), least severe first. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a handler can send to the caller during a call (see ToolContext.client). */
export interface ClientChannel {
  /** Reports progress; `total` when known. Dropped when the caller asked for no progress. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message at `level` (dropped below the caller's threshold). */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Sends a request to the caller's client (`sampling/createMessage`, `elicitation/create`) and
   * resolves with its result. Undefined when the door has no way back to the client (/v1).
   */
  request?: (method: string, params: Record<string, unknown>) => Promise<unknown>;
  /**
   * MCP's modern era, where a question ends the call's leg and the client's retry runs the tool
   * again: what the handler left for that retry on an earlier leg (`carried`, signed into the
   * requestState beside the answers, so the client can read but not change it), and `carry` to
   * leave a value for the next one. Undefined where a question is answered within the call.
   */
  resume?: { readonly carried: unknown; carry(value: unknown): void };
}
