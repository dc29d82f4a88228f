/**
 * Remote MCP servers' tools in the registry, at run time. The registry is filled at build time
 * for our own tools; remote ones are registered per isolate from each server's tool list (KV,
 * `mcp:tools:<server>`), before a route lists or dispatches tools (`ensure`). A list older than
 * MCP_TOOLS_TTL_SECONDS, or one a `notifications/tools/list_changed` made stale, is fetched
 * again; concurrent requests share one sync. Server configurations are re-read every 30 s, so
 * a change made through another isolate applies within that (plus KV's propagation).
 *
 * Registration fails closed: a remote tool never replaces a built-in or another server's tool,
 * and names that sanitise to the same registry name are all left out; each refusal is logged
 * and listed in the server's status. A server that is removed or disabled takes its tools out.
 */
import { loadConfig } from "../../config/config.ts";
import { registry } from "../../registry/registry.ts";
import { waitOutSync } from "../../runtime/wait-out-sync.ts";
import { forgetSession } from "../client/mcp-client.ts";
import { acceptPin, type PinAcceptance } from "./accept-pin.ts";
import { fetchToolList } from "./fetch-tool-list.ts";
import { newServerState } from "./new-server-state.ts";
import { OwnWrites } from "./own-writes.ts";
import { readPins } from "./pins.ts";
import { unregisterToolList } from "./register-tool-list.ts";
import { serverOfToolset } from "./remote-tool-name.ts";
import { loadSignIn } from "./server-auth.ts";
import type { McpServerConfig } from "./server-config.ts";
import { type PinStatus, pinStatus, type ServerState, type ServerStatus, statusOf } from "./server-state.ts";
import { loadServers } from "./server-store.ts";
import { type SignInStart, startSignIn } from "./start-sign-in.ts";
import { listDue, syncServer } from "./sync-server.ts";

/** How often an isolate re-reads server configurations (and pins) from KV. */
const CONFIG_RELOAD_MS = 30_000;
/** How often a request waiting for another request's sync looks whether it has ended. */
const SYNC_POLL_MS = 2;
/** Longer than any sync on a request's path takes (its list fetches are bounded by LIST_ON_REQUEST_TIMEOUT_MS, sync-server.ts). */
export const SYNC_WAIT_MAX_MS = 15_000;

export class Federation {
  readonly #servers = new Map<string, ServerState>();
  readonly #now: () => number;
  #configLoadedAt = Number.NEGATIVE_INFINITY;
  /**
   * The sync under way. Only the request that started it awaits this promise: on workerd a
   * request that awaited it could resume in the syncing request's I/O context (its KV reads
   * settle there), and the next touch of its own body then failed with "Cannot perform I/O on
   * behalf of a different request" (500s under concurrent /mcp load). Others wait by #syncEnded.
   */
  #syncing: Promise<void> | undefined;
  /** This isolate's own configuration writes, which KV's `list` may not show for a minute. */
  readonly #ownWrites: OwnWrites;
  /**
   * Whether the last read of the configurations failed (KV did not answer). The servers in memory
   * are then what this isolate last knew, or nothing at all, so a listing would be untrue.
   */
  #configsUnread = false;

  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
    this.#ownWrites = new OwnWrites(now);
  }

  /** Registers remote tools that are due; cheap (no I/O) when nothing is. Never throws. */
  async ensure(env: Env): Promise<void> {
    if (!this.#due(env)) return;
    if (this.#syncing !== undefined) return this.#syncEnded();
    const syncing = this.#sync(env, false)
      .catch((error: unknown) => console.error(`MCP federation: sync failed: ${String(error)}`))
      .finally(() => (this.#syncing = undefined));
    this.#syncing = syncing;
    await syncing;
  }

  /**
   * Resolves once no sync is under way, woken only by the calling request's own timers, so it
   * resumes in its own I/O context. (A promise of its own resolved by the syncing request does
   * not do: workerd defers that continuation to the waiting request, which, with no I/O of its
   * own pending, is then cancelled as hung.)
   */
  async #syncEnded(): Promise<void> {
    const syncing = this.#syncing;
    const ended = await waitOutSync(() => this.#syncing !== undefined && this.#syncing === syncing, this.#now, SYNC_WAIT_MAX_MS, SYNC_POLL_MS);
    // Its request was cancelled mid-sync (its promise then never settles): let the next one sync.
    if (ended === "gave_up") this.#syncing = undefined;
  }

  /**
   * Re-reads configurations now and syncs, after an admin wrote (`config`) or deleted (`null`)
   * the server `name` through this isolate.
   */
  async reload(env: Env, change?: { name: string; config: McpServerConfig | null }): Promise<void> {
    if (change !== undefined) this.#ownWrites.record(change.name, change.config);
    await this.#syncEnded();
    await this.#sync(env, true);
  }

  /**
   * Fetches one server's list now, whatever the cache says, and registers it. Returns the
   * status; `error` is set when the server could not be listed (the previous list stays).
   */
  async refresh(env: Env, name: string): Promise<{ status: ServerStatus; error?: string } | undefined> {
    // The configurations only: a full sync would also fetch every other stale server's list,
    // and this one's twice.
    await this.#syncEnded();
    await this.#loadConfigs(env);
    const state = this.#servers.get(name);
    if (state === undefined) return undefined;
    if (!state.config.enabled) return { status: statusOf(state), error: `MCP server '${name}' is disabled` };
    const error = await fetchToolList(env, state, state.config.timeout_ms, this.#now);
    return { status: statusOf(state), ...(error === undefined ? {} : { error }) };
  }

  /**
   * Every configured server's status, after a sync; `undefined` when the configurations could
   * not be read just now (the failure is logged), rather than a list that may be stale or empty.
   */
  async statuses(env: Env): Promise<ServerStatus[] | undefined> {
    await this.ensure(env);
    if (this.#configsUnread) return undefined;
    return [...this.#servers.values()].map((state) => statusOf(state));
  }

  async status(env: Env, name: string): Promise<ServerStatus | undefined> {
    await this.ensure(env);
    const state = this.#servers.get(name);
    return state === undefined ? undefined : statusOf(state);
  }

  /** The pin status of a registered remote tool, or undefined for tools that are not remote. */
  pinOf(toolName: string): PinStatus | undefined {
    const entry = registry.get(toolName);
    const server = entry === undefined ? undefined : serverOfToolset(entry.toolset);
    if (server === undefined) return undefined;
    const state = this.#servers.get(server);
    const remoteName = state?.registered.get(toolName);
    return state === undefined || remoteName === undefined ? undefined : pinStatus(state, remoteName);
  }

  /**
   * Accepts the changed definition of one tool (registry or remote name): it becomes the pinned
   * one and the tool is no longer blocked. `undefined` when the server or tool is unknown.
   */
  async accept(env: Env, server: string, tool: string, keyId: string): Promise<PinAcceptance | undefined> {
    await this.ensure(env);
    const state = this.#servers.get(server);
    if (state === undefined) return undefined;
    const remoteName = state.registered.get(tool) ?? ([...state.registered.values()].includes(tool) ? tool : undefined);
    if (remoteName === undefined) return undefined;
    return acceptPin(env, state, remoteName, keyId, this.#now);
  }

  /**
   * Starts an admin's OAuth sign-in at the server (or, with `connectFor`, that principal's own
   * per-user connection); undefined when it is unknown.
   */
  async startSignIn(env: Env, name: string, keyId: string, origin: string, connectFor?: string): Promise<SignInStart | undefined> {
    await this.ensure(env);
    const state = this.#servers.get(name);
    return state === undefined ? undefined : startSignIn(env, state, keyId, origin, connectFor);
  }

  /** Forgets every server (tests that start from nothing, and the benchmark). */
  reset(): void {
    for (const state of this.#servers.values()) unregisterToolList(state);
    this.#servers.clear();
    this.#ownWrites.forget();
    this.#configLoadedAt = Number.NEGATIVE_INFINITY;
    this.#configsUnread = false;
  }

  #due(env: Env): boolean {
    const now = this.#now();
    if (now - this.#configLoadedAt >= CONFIG_RELOAD_MS) return true;
    const ttlMs = loadConfig(env).mcpToolsTtlSeconds * 1000;
    for (const state of this.#servers.values()) if (listDue(state, now, ttlMs)) return true;
    return false;
  }

  async #sync(env: Env, reloadConfigs: boolean): Promise<void> {
    const now = this.#now();
    if (reloadConfigs || now - this.#configLoadedAt >= CONFIG_RELOAD_MS) await this.#loadConfigs(env);
    const ttlMs = loadConfig(env).mcpToolsTtlSeconds * 1000;
    const clock = { startedAt: now, ttlMs, now: this.#now };
    await Promise.all([...this.#servers.values()].map((state) => syncServer(env, state, clock)));
  }

  /** Reads the configurations and pins, and drops, adds or resets servers to match. */
  async #loadConfigs(env: Env): Promise<void> {
    let stored: Awaited<ReturnType<typeof loadServers>>;
    try {
      stored = await loadServers(env);
    } catch (error) {
      this.#configsUnread = true;
      throw error;
    }
    this.#configsUnread = false;
    const servers = this.#ownWrites.applyTo(stored);
    this.#configLoadedAt = this.#now();
    const seen = new Set<string>();
    for (const { config, source } of servers) {
      seen.add(config.name);
      const configJson = JSON.stringify(config);
      let state = this.#servers.get(config.name);
      if (state !== undefined && state.configJson !== configJson) {
        unregisterToolList(state);
        forgetSession(state.config);
        state = undefined;
      }
      if (state === undefined) {
        state = newServerState(config, source, configJson);
        this.#servers.set(config.name, state);
      }
      state.source = source;
      if (!config.enabled) {
        unregisterToolList(state);
        continue;
      }
      // Pins may have been accepted, and sign-ins made or refreshed, through another isolate.
      state.pins = await readPins(env.KV, config.name);
      state.signIn = (await loadSignIn(env, config.name, this.#now())) ?? state.signIn;
    }
    for (const [name, state] of this.#servers) {
      if (seen.has(name)) continue;
      unregisterToolList(state);
      forgetSession(state.config);
      this.#servers.delete(name);
    }
  }
}

/** The isolate's federation state. */
export const federation = new Federation();
