/**
 * The ClientChannel a tool gets during an MCP `tools/call`: progress notifications for the
 * request's `_meta.progressToken`, log notifications (MCP server/utilities/logging), and
 * requests to the client (replies/ask-client.ts), all sent on the response's SSE stream.
 *
 * The server is stateless, so a `logging/setLevel` cannot be remembered for later requests; log
 * messages at or above `info` are sent, debug ones dropped (the threshold RFC 5424 servers
 * commonly default to).
 */
import { type ClientChannel, LOG_LEVELS, type LogLevel } from "../../registry/client-channel.ts";
import { notificationText } from "./json-rpc.ts";

/** Sends one serialised JSON-RPC message to the client while the request is still open. */
export interface Outbound {
  /** False when the client does not accept a stream: sent messages are then dropped. */
  readonly canStream: boolean;
  send(message: string): void;
}

const DEFAULT_LOG_LEVEL: LogLevel = "info";

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);

/**
 * Builds the channel of one tools/call. `minLevel` "none": no log notifications (a modern-era
 * request that did not name a level, which the revision says gets none). `askOffStream`: the
 * questions travel in the result (the modern era's input_required), not on the stream; `resume`
 * is then what a handler carries from leg to leg.
 */
export function mcpClientChannel(
  outbound: Outbound,
  progressToken: string | number | undefined,
  ask: ClientChannel["request"],
  minLevel: LogLevel | "none" = DEFAULT_LOG_LEVEL,
  askOffStream = false,
  resume?: ClientChannel["resume"],
): ClientChannel {
  const threshold = minLevel === "none" ? Number.POSITIVE_INFINITY : rank(minLevel);
  // One literal of fixed shape, absent parts undefined: conditional spreads cost every tools/call.
  return {
    resume,
    // Asking on the stream needs one to travel on.
    request: !outbound.canStream && !askOffStream ? undefined : ask,
    progress(progress, total, message) {
      // MCP server/utilities/progress: only for requests that asked, with their token.
      if (progressToken === undefined) return;
      outbound.send(
        notificationText("notifications/progress", {
          progressToken,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
      );
    },
    log(level, data, logger) {
      if (rank(level) < threshold) return;
      outbound.send(notificationText("notifications/message", { level, ...(logger === undefined ? {} : { logger }), data }));
    },
  };
}
