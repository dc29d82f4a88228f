/** The state an isolate starts from for a server it has not seen, or whose configuration changed. */
import { CHECK_TIMEOUT_MS } from "../../registry/availability.ts";
import { serverClient } from "./server-client.ts";
import type { McpServerConfig } from "./server-config.ts";
import type { ServerState } from "./server-state.ts";
import type { ConfiguredServer } from "./server-store.ts";

/** A server with no list, no registered tools and no pins read yet; its first sync fetches them. */
export function newServerState(config: McpServerConfig, source: ConfiguredServer["source"], configJson: string): ServerState {
  const state: ServerState = {
    config,
    source,
    configJson,
    list: undefined,
    registered: new Map(),
    schemaNotes: new Map(),
    problems: [],
    pins: {},
    lastError: undefined,
    lastAttemptAt: Number.NEGATIVE_INFINITY,
    stale: false,
    signIn: undefined,
    refreshing: undefined,
    exchange: { target: undefined, tokens: new Map() },
    // One function per server: the availability cache keys results by check, so one probe
    // answers for all of the server's tools.
    check: async (env) => {
      await serverClient(env, state).ping(AbortSignal.timeout(Math.min(CHECK_TIMEOUT_MS, config.timeout_ms)));
      return true;
    },
  };
  return state;
}
