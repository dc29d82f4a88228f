/**
 * When one server's list is due, and bringing it up to date on a request's path: from this
 * isolate's memory if fresh, else from KV if another isolate fetched it recently, else from the
 * server, at most every LIST_RETRY_MS after a failure and within LIST_ON_REQUEST_TIMEOUT_MS.
 */
import { fetchToolList } from "./fetch-tool-list.ts";
import { registerToolList } from "./register-tool-list.ts";
import type { ServerState } from "./server-state.ts";
import { readToolList } from "./tool-list-cache.ts";

/** After a failed fetch of a list, the next try waits this long (a down server is not hammered). */
const LIST_RETRY_MS = 30_000;
/** A fetch of a stale list on a request's path waits at most this long (a refresh may take the full timeout). */
const LIST_ON_REQUEST_TIMEOUT_MS = 5_000;

/** One sync's clock: when it started (every server is judged at that time), and the live clock. */
export interface SyncClock {
  startedAt: number;
  ttlMs: number;
  now: () => number;
}

/** Whether an enabled server's list needs a sync: marked stale, or older than the TTL and not just tried. */
export function listDue(state: ServerState, now: number, ttlMs: number): boolean {
  if (!state.config.enabled) return false;
  if (state.stale) return true;
  const old = state.list === undefined || now - state.list.fetchedAt >= ttlMs;
  return old && now - state.lastAttemptAt >= LIST_RETRY_MS;
}

/** Brings one server's registered tools up to date, if it is enabled and its list is not fresh. */
export async function syncServer(env: Env, state: ServerState, { startedAt, ttlMs, now }: SyncClock): Promise<void> {
  if (!state.config.enabled) return;
  // A list_changed skips every cache: the server said the list it gave is out of date.
  const { stale } = state;
  const fresh = state.list !== undefined && !stale && startedAt - state.list.fetchedAt < ttlMs;
  if (fresh) return;
  // Another isolate may have fetched it already.
  const cached = stale ? null : await readToolList(env.KV, state.config.name);
  if (cached !== null && cached.url === state.config.url && startedAt - cached.fetchedAt < ttlMs) {
    await registerToolList(env, state, cached, now);
    return;
  }
  if (!stale && startedAt - state.lastAttemptAt < LIST_RETRY_MS) {
    // A recent try failed: keep serving whatever list there is, however old.
    if (state.list === undefined && cached !== null && cached.url === state.config.url) await registerToolList(env, state, cached, now);
    return;
  }
  const error = await fetchToolList(env, state, Math.min(state.config.timeout_ms, LIST_ON_REQUEST_TIMEOUT_MS), now);
  if (error !== undefined && state.list === undefined && cached !== null && cached.url === state.config.url) await registerToolList(env, state, cached, now);
}
