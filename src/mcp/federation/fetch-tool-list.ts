/** Fetching one server's tool list from the server itself, bypassing every cache. */
import { registerToolList } from "./register-tool-list.ts";
import { syncRemoteContent } from "./remote-content.ts";
import { serverClient } from "./server-client.ts";
import type { ServerState } from "./server-state.ts";
import { type CachedToolList, writeToolList } from "./tool-list-cache.ts";

/**
 * Lists the server's tools now, caches the list in KV for other isolates and registers it.
 * Never throws: returns the error text on failure, which also becomes the server's `lastError`
 * (the previous list, if any, stays registered).
 */
export async function fetchToolList(env: Env, state: ServerState, timeoutMs: number, now: () => number): Promise<string | undefined> {
  state.lastAttemptAt = now();
  try {
    const { tools, transport } = await serverClient(env, state).listTools(AbortSignal.timeout(timeoutMs));
    const list: CachedToolList = { url: state.config.url, transport, fetchedAt: now(), tools };
    state.stale = false;
    state.lastError = undefined;
    await writeToolList(env.KV, state.config.name, list);
    await registerToolList(env, state, list, now);
    // Prompts and resources come with a fresh list only: they are not cached in KV.
    await syncRemoteContent(env, state, AbortSignal.timeout(timeoutMs));
    return undefined;
  } catch (error) {
    const message = `listing the tools of MCP server '${state.config.name}' failed: ${error instanceof Error ? error.message : String(error)}`;
    console.warn(message);
    state.lastError = { at: now(), message };
    // Retried on the LIST_RETRY_MS schedule (sync-server.ts) from now on, not on every request.
    state.stale = false;
    return message;
  }
}
