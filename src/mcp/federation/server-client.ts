/** The MCP client for one configured server, built per use from the calling request's env. */
import { loadConfig } from "../../config/config.ts";
import { resolveSecretHeaders } from "../../net/secret-headers.ts";
import { type McpAuth, McpClient } from "../client/mcp-client.ts";
import { serverAuth } from "./server-auth.ts";
import type { ServerState } from "./server-state.ts";

/**
 * A client for the server with its header secrets read from `env` (a secret unset or empty
 * sends no header). A `list_changed` the server sends on any of its streams marks the state
 * stale, so the next sync fetches the list again whatever its age. A server without an
 * Authorization header gets toolgate's OAuth token for it, when an admin has signed in.
 * `callHeaders` are one call's own (its identity token), `callAuth` the caller's own token
 * source at a `per_user` server, which replaces toolgate's.
 */
export function serverClient(env: Env, state: ServerState, callHeaders?: Readonly<Record<string, string>>, callAuth?: McpAuth): McpClient {
  const secretHeaders = resolveSecretHeaders(state.config.headers, env);
  const headers = callHeaders === undefined ? secretHeaders : { ...secretHeaders, ...callHeaders };
  const auth = callAuth ?? serverAuth(env, state, () => Date.now());
  return new McpClient(
    {
      name: state.config.name,
      url: state.config.url,
      headers,
      timeoutMs: state.config.timeout_ms,
      allow: loadConfig(env).outboundAllow,
      ...(auth === undefined ? {} : { auth }),
    },
    () => {
      state.stale = true;
    },
  );
}
