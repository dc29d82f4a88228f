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
import { CHECK_TIMEOUT_MS } from "../../registry/availability.ts";
import { registry } from "../../registry/registry.ts";
import { forgetSession, McpClient } from "../client/mcp-client.ts";
import { modelSchema, validatorFor } from "./json-schema-validator.ts";
import { auditPinEvents, type PinEvent } from "./pin-audit.ts";
import { comparePins, readPins, writePins } from "./pins.ts";
import { planRegistration } from "./plan-registration.ts";
import { remoteToolName, remoteToolset, serverOfToolset } from "./remote-tool-name.ts";
import { remoteToolSpec } from "./remote-tool.ts";
import { blockedReason, pinStatus, statusOf, type PinStatus, type ServerState, type ServerStatus } from "./server-state.ts";
import type { McpServerConfig } from "./server-config.ts";
import { loadServers, sortServers, type ConfiguredServer } from "./server-store.ts";
import { readToolList, writeToolList, type CachedToolList } from "./tool-list-cache.ts";

/** How often an isolate re-reads server configurations (and pins) from KV. */
const CONFIG_RELOAD_MS = 30_000;
/** After a failed fetch of a list, the next try waits this long (a down server is not hammered). */
const LIST_RETRY_MS = 30_000;
/** A fetch of a stale list on a request's path waits at most this long (a refresh may take the full timeout). */
const LIST_ON_REQUEST_TIMEOUT_MS = 5_000;
/** How often a request waiting for another request's sync looks whether it has ended. */
const SYNC_POLL_MS = 2;
/** Longer than any sync on a request's path takes (its list fetches are bounded by LIST_ON_REQUEST_TIMEOUT_MS). */
export const SYNC_WAIT_MAX_MS = 15_000;
/** KV's propagation bound: how long this isolate trusts its own writes over what `list` returns. */
const OWN_WRITE_TRUST_MS = 60_000;

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
  /**
   * Servers this isolate just wrote (a config) or deleted (null). KV's `list` may lag a write
   * by up to a minute, so until then this isolate's own change wins over what `list` says.
   */
  readonly #ownWrites = new Map<string, { config: McpServerConfig | null; until: number }>();

  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
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
    const giveUpAt = this.#now() + SYNC_WAIT_MAX_MS;
    while (this.#syncing !== undefined && this.#syncing === syncing) {
      if (this.#now() >= giveUpAt) {
        // Its request was cancelled mid-sync (its promise then never settles): let the next one sync.
        this.#syncing = undefined;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, SYNC_POLL_MS));
    }
  }

  /**
   * Re-reads configurations now and syncs, after an admin wrote (`config`) or deleted (`null`)
   * the server `name` through this isolate.
   */
  async reload(env: Env, change?: { name: string; config: McpServerConfig | null }): Promise<void> {
    if (change !== undefined) this.#ownWrites.set(change.name, { config: change.config, until: this.#now() + OWN_WRITE_TRUST_MS });
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
    const error = await this.#fetchList(env, state, state.config.timeout_ms);
    return { status: statusOf(state), ...(error === undefined ? {} : { error }) };
  }

  /** Every configured server's status, after a sync. */
  async statuses(env: Env): Promise<ServerStatus[]> {
    await this.ensure(env);
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
  async accept(env: Env, server: string, tool: string, keyId: string): Promise<{ accepted: boolean; pin?: PinStatus } | undefined> {
    await this.ensure(env);
    const state = this.#servers.get(server);
    if (state === undefined) return undefined;
    const remoteName = state.registered.get(tool) ?? ([...state.registered.values()].includes(tool) ? tool : undefined);
    if (remoteName === undefined) return undefined;
    const pins = await readPins(env.KV, server);
    const pin = pins[remoteName];
    if (pin?.changed === undefined) {
      state.pins = pins;
      return { accepted: false, ...(pin === undefined ? {} : { pin: pinStatus(state, remoteName) }) };
    }
    const event: PinEvent = {
      event: "accepted",
      server,
      remoteName,
      tool: remoteToolName(server, remoteName),
      toolset: remoteToolset(server),
      pinnedSha256: pin.sha256,
      currentSha256: pin.changed.sha256,
      blocked: state.config.pin === "block",
      keyId,
    };
    pins[remoteName] = { sha256: pin.changed.sha256, pinnedAt: this.#now() };
    await writePins(env.KV, server, pins);
    state.pins = pins;
    await auditPinEvents(env, [event]);
    return { accepted: true, pin: pinStatus(state, remoteName) };
  }

  /** Forgets every server (tests that start from nothing, and the benchmark). */
  reset(): void {
    for (const state of this.#servers.values()) this.#unregisterAll(state);
    this.#servers.clear();
    this.#configLoadedAt = Number.NEGATIVE_INFINITY;
  }

  #due(env: Env): boolean {
    const now = this.#now();
    if (now - this.#configLoadedAt >= CONFIG_RELOAD_MS) return true;
    const ttlMs = loadConfig(env).mcpToolsTtlSeconds * 1000;
    for (const state of this.#servers.values()) {
      if (!state.config.enabled) continue;
      if (state.stale) return true;
      const old = state.list === undefined || now - state.list.fetchedAt >= ttlMs;
      if (old && now - state.lastAttemptAt >= LIST_RETRY_MS) return true;
    }
    return false;
  }

  async #sync(env: Env, reloadConfigs: boolean): Promise<void> {
    const now = this.#now();
    if (reloadConfigs || now - this.#configLoadedAt >= CONFIG_RELOAD_MS) await this.#loadConfigs(env);
    const ttlMs = loadConfig(env).mcpToolsTtlSeconds * 1000;
    await Promise.all(
      [...this.#servers.values()].map(async (state) => {
        if (!state.config.enabled) return;
        // A list_changed skips every cache: the server said the list it gave is out of date.
        const { stale } = state;
        const fresh = state.list !== undefined && !stale && now - state.list.fetchedAt < ttlMs;
        if (fresh) return;
        // Another isolate may have fetched it already.
        const cached = stale ? null : await readToolList(env.KV, state.config.name);
        if (cached !== null && cached.url === state.config.url && now - cached.fetchedAt < ttlMs) {
          await this.#apply(env, state, cached);
          return;
        }
        if (!stale && now - state.lastAttemptAt < LIST_RETRY_MS) {
          // A recent try failed: keep serving whatever list there is, however old.
          if (state.list === undefined && cached !== null && cached.url === state.config.url) await this.#apply(env, state, cached);
          return;
        }
        const error = await this.#fetchList(env, state, Math.min(state.config.timeout_ms, LIST_ON_REQUEST_TIMEOUT_MS));
        if (error !== undefined && state.list === undefined && cached !== null && cached.url === state.config.url) await this.#apply(env, state, cached);
      }),
    );
  }

  /** Reads the configurations and pins, and drops, adds or resets servers to match. */
  async #loadConfigs(env: Env): Promise<void> {
    const servers = this.#withOwnWrites(await loadServers(env));
    this.#configLoadedAt = this.#now();
    const seen = new Set<string>();
    for (const { config, source } of servers) {
      seen.add(config.name);
      const configJson = JSON.stringify(config);
      let state = this.#servers.get(config.name);
      if (state !== undefined && state.configJson !== configJson) {
        this.#unregisterAll(state);
        forgetSession(state.config);
        state = undefined;
      }
      if (state === undefined) {
        state = this.#newState(config, source, configJson);
        this.#servers.set(config.name, state);
      }
      state.source = source;
      if (!config.enabled) {
        this.#unregisterAll(state);
        continue;
      }
      // Pins may have been accepted through another isolate.
      state.pins = await readPins(env.KV, config.name);
    }
    for (const [name, state] of this.#servers) {
      if (seen.has(name)) continue;
      this.#unregisterAll(state);
      forgetSession(state.config);
      this.#servers.delete(name);
    }
  }

  #withOwnWrites(servers: ConfiguredServer[]): ConfiguredServer[] {
    const now = this.#now();
    let result = servers;
    for (const [name, write] of this.#ownWrites) {
      if (now >= write.until) {
        this.#ownWrites.delete(name);
        continue;
      }
      // Servers from the MCP_SERVERS var are never written through the API.
      if (result.some((s) => s.config.name === name && s.source === "config")) continue;
      result = result.filter((s) => s.config.name !== name);
      if (write.config !== null) result.push({ config: write.config, source: "api" });
    }
    return sortServers(result);
  }

  #newState(config: McpServerConfig, source: ConfiguredServer["source"], configJson: string): ServerState {
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
      // One function per server: the availability cache keys results by check, so one probe
      // answers for all of the server's tools.
      check: async (env) => {
        await this.#clientFor(env, state).ping(AbortSignal.timeout(Math.min(CHECK_TIMEOUT_MS, config.timeout_ms)));
        return true;
      },
    };
    return state;
  }

  #clientFor(env: Env, state: ServerState): McpClient {
    const vars = env as unknown as Record<string, unknown>;
    const headers: Record<string, string> = {};
    for (const [header, ref] of Object.entries(state.config.headers)) {
      const value = vars[ref.secret];
      if (typeof value === "string" && value !== "") headers[header] = value;
    }
    return new McpClient(
      { name: state.config.name, url: state.config.url, headers, timeoutMs: state.config.timeout_ms, allow: loadConfig(env).outboundAllow },
      () => {
        state.stale = true;
      },
    );
  }

  /** Lists the server's tools now and registers them; returns the error text on failure. */
  async #fetchList(env: Env, state: ServerState, timeoutMs: number): Promise<string | undefined> {
    state.lastAttemptAt = this.#now();
    try {
      const { tools, transport } = await this.#clientFor(env, state).listTools(AbortSignal.timeout(timeoutMs));
      const list: CachedToolList = { url: state.config.url, transport, fetchedAt: this.#now(), tools };
      state.stale = false;
      state.lastError = undefined;
      await writeToolList(env.KV, state.config.name, list);
      await this.#apply(env, state, list);
      return undefined;
    } catch (error) {
      const message = `listing the tools of MCP server '${state.config.name}' failed: ${error instanceof Error ? error.message : String(error)}`;
      console.warn(message);
      state.lastError = { at: this.#now(), message };
      // Retried on the LIST_RETRY_MS schedule from now on, not on every request.
      state.stale = false;
      return message;
    }
  }

  /** Registers a list's selected tools and removes the server's tools it no longer has. */
  async #apply(env: Env, state: ServerState, list: CachedToolList): Promise<void> {
    const { config } = state;
    const compared = await comparePins(await readPins(env.KV, config.name), list.tools, this.#now());
    if (compared.dirty) await writePins(env.KV, config.name, compared.pins);
    state.pins = compared.pins;
    state.list = list;

    const toolset = remoteToolset(config.name);
    const { wanted, problems } = planRegistration(config, list.tools, (name) => registry.get(name)?.toolset);
    for (const name of state.registered.keys()) {
      if (!wanted.has(name) && registry.get(name)?.toolset === toolset) registry.deregister(name);
    }
    const registered = new Map<string, string>();
    const schemaNotes = new Map<string, string>();
    for (const [name, tool] of wanted) {
      const validator = validatorFor(tool.inputSchema);
      if (validator.unsupported !== undefined) schemaNotes.set(name, `arguments are checked by the server only: ${validator.unsupported}`);
      const outcome = registry.register(
        remoteToolSpec({
          server: config,
          tool,
          name,
          toolset,
          parameters: modelSchema(tool.inputSchema),
          validator,
          clientFor: (callEnv) => this.#clientFor(callEnv, state),
          check: state.check,
          gate: () => blockedReason(state, tool.name),
        }),
      );
      if (outcome.ok) registered.set(name, tool.name);
      else problems.push(outcome.reason);
    }
    for (const problem of problems) console.error(`MCP server '${config.name}': ${problem}`);
    state.registered = registered;
    state.schemaNotes = schemaNotes;
    state.problems = problems;

    const events: PinEvent[] = compared.newlyChanged
      .filter((remoteName) => [...registered.values()].includes(remoteName))
      .map((remoteName) => {
        const pin = compared.pins[remoteName];
        return {
          event: "changed",
          server: config.name,
          remoteName,
          tool: remoteToolName(config.name, remoteName),
          toolset,
          pinnedSha256: pin?.sha256 ?? "",
          currentSha256: pin?.changed?.sha256 ?? "",
          blocked: config.pin === "block",
          keyId: "federation",
        };
      });
    await auditPinEvents(env, events);
  }

  #unregisterAll(state: ServerState): void {
    const toolset = remoteToolset(state.config.name);
    for (const name of state.registered.keys()) if (registry.get(name)?.toolset === toolset) registry.deregister(name);
    state.registered = new Map();
    state.list = undefined;
  }

}

/** The isolate's federation state. */
export const federation = new Federation();
