/**
 * Runtime OpenAPI sources' tools in the registry, per isolate. Build-time sources (apis/) are
 * registered by the generated module; these are read from KV (source-store.ts) before a route
 * lists or dispatches tools (`ensure`, through the catalog), and re-read every 30 s, so a change
 * made through another isolate applies within that (plus KV's propagation).
 *
 * Only the pinned spec's operations are served. A refreshed spec that differs waits as `pending`
 * until an admin accepts it, so an upstream that edits its spec cannot change what the model can
 * call without a person seeing what moved. Registration fails closed: a name another toolset holds
 * is left out and listed in the source's problems.
 */
import { registry } from "../registry/registry.ts";
import { waitOutSync } from "../runtime/wait-out-sync.ts";
import { yieldSlice } from "../runtime/yield-slice.ts";
import { openApiToolSpec } from "./openapi-tool.ts";
import type { OpenApiOperation } from "./operation.ts";
import { sourceToolset } from "./source-config.ts";
import { listSources, readOperations, type StoredOpenApiSource } from "./source-store.ts";

/** How often an isolate re-reads the sources from KV. */
const RELOAD_MS = 30_000;
/** KV's propagation bound: how long this isolate trusts its own writes over what `list` returns. */
const OWN_WRITE_TRUST_MS = 60_000;
/** How often a request waiting for another request's sync looks whether it has ended. */
const SYNC_POLL_MS = 2;
const SYNC_WAIT_MAX_MS = 15_000;
/** Operations registered between pauses. */
const REGISTER_SLICE = 100;

export interface SourceState {
  record: StoredOpenApiSource;
  /** The spec whose operations are registered now; undefined when none are (disabled, or not loaded). */
  registeredSha?: string;
  /** Registry name → operation, for the tools registered now. */
  tools: Map<string, OpenApiOperation>;
  /** Operations left out at registration (a name another toolset holds), one line each. */
  problems: string[];
}

export class OpenApiSources {
  readonly #states = new Map<string, SourceState>();
  readonly #ownWrites = new Map<string, { record: StoredOpenApiSource | null; until: number }>();
  readonly #now: () => number;
  #loadedAt = Number.NEGATIVE_INFINITY;
  /** See Federation.#syncing: only the request that started a sync awaits it; others poll with their own timers. */
  #syncing: Promise<void> | undefined;
  #unread = false;

  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
  }

  /** Registers the sources' tools when a re-read is due; no I/O when none is. Never throws. */
  async ensure(env: Env): Promise<void> {
    if (this.#now() - this.#loadedAt < RELOAD_MS) return;
    if (this.#syncing !== undefined) return this.#syncEnded();
    const syncing = this.#sync(env)
      .catch((error: unknown) => console.error(`OpenAPI sources: sync failed: ${String(error)}`))
      .finally(() => (this.#syncing = undefined));
    this.#syncing = syncing;
    await syncing;
  }

  /** Applies a write (`record`) or deletion (`null`) this isolate just made, then re-reads. */
  async reload(env: Env, name: string, record: StoredOpenApiSource | null): Promise<void> {
    this.#ownWrites.set(name, { record, until: this.#now() + OWN_WRITE_TRUST_MS });
    await this.#syncEnded();
    // The write is stored; a re-read that fails (KV not answering) is logged, and the route says so.
    await this.#sync(env).catch((error: unknown) => console.error(`OpenAPI sources: re-read after a write failed: ${String(error)}`));
  }

  /** Every source's state after a sync; undefined when KV could not be read just now. */
  async states(env: Env): Promise<SourceState[] | undefined> {
    await this.ensure(env);
    if (this.#unread) return undefined;
    return [...this.#states.values()].sort((a, b) => (a.record.config.name < b.record.config.name ? -1 : 1));
  }

  async state(env: Env, name: string): Promise<SourceState | undefined> {
    await this.ensure(env);
    return this.#states.get(name);
  }

  /** Forgets every source (tests that start from nothing, and the benchmark). */
  reset(): void {
    for (const state of this.#states.values()) unregister(state);
    this.#states.clear();
    this.#ownWrites.clear();
    this.#loadedAt = Number.NEGATIVE_INFINITY;
    this.#unread = false;
  }

  async #syncEnded(): Promise<void> {
    const syncing = this.#syncing;
    const ended = await waitOutSync(() => this.#syncing !== undefined && this.#syncing === syncing, this.#now, SYNC_WAIT_MAX_MS, SYNC_POLL_MS);
    if (ended === "gave_up") this.#syncing = undefined;
  }

  async #sync(env: Env): Promise<void> {
    let listed: StoredOpenApiSource[];
    try {
      listed = await listSources(env.KV);
    } catch (error) {
      this.#unread = true;
      throw error;
    }
    this.#unread = false;
    this.#loadedAt = this.#now();
    const records = this.#withOwnWrites(listed);
    const seen = new Set<string>();
    for (const record of records) {
      const name = record.config.name;
      seen.add(name);
      const state: SourceState = this.#states.get(name) ?? { record, tools: new Map(), problems: [] };
      this.#states.set(name, state);
      const wanted = record.config.enabled ? record.pinned.sha256 : undefined;
      const reconfigured = JSON.stringify(state.record.config) !== JSON.stringify(record.config) || state.record.pinned.baseUrl !== record.pinned.baseUrl;
      state.record = record;
      if (wanted === state.registeredSha && !reconfigured) continue;
      unregister(state);
      if (wanted !== undefined) await register(env, state);
    }
    for (const [name, state] of this.#states) {
      if (seen.has(name)) continue;
      unregister(state);
      this.#states.delete(name);
    }
  }

  #withOwnWrites(listed: StoredOpenApiSource[]): StoredOpenApiSource[] {
    const now = this.#now();
    const byName = new Map(listed.map((record) => [record.config.name, record]));
    for (const [name, write] of this.#ownWrites) {
      if (now >= write.until) this.#ownWrites.delete(name);
      else if (write.record === null) byName.delete(name);
      else byName.set(name, write.record);
    }
    return [...byName.values()];
  }
}

/** Registers the pinned spec's operations as tools; a missing operations record is a problem, not a throw. */
async function register(env: Env, state: SourceState): Promise<void> {
  const { config, pinned } = state.record;
  const converted = await readOperations(env.KV, config.name, pinned.sha256);
  state.problems = [];
  if (converted === null) {
    state.problems.push(`the operations of spec ${pinned.sha256.slice(0, 12)} are missing from KV; refresh the source`);
    return;
  }
  for (const [index, operation] of converted.operations.entries()) {
    const outcome = registry.register(
      openApiToolSpec(config, operation, { baseUrl: pinned.baseUrl, ...(pinned.userOAuth === undefined ? {} : { userOAuth: pinned.userOAuth }) }),
    );
    if (outcome.ok) state.tools.set(operation.name, operation);
    else state.problems.push(outcome.reason);
    // A thousand-operation spec registers in slices, so the isolate keeps serving meanwhile.
    if (index % REGISTER_SLICE === REGISTER_SLICE - 1) await yieldSlice();
  }
  for (const problem of state.problems) console.error(`OpenAPI source '${config.name}': ${problem}`);
  state.registeredSha = pinned.sha256;
}

function unregister(state: SourceState): void {
  const toolset = sourceToolset(state.record.config.name);
  for (const name of state.tools.keys()) if (registry.get(name)?.toolset === toolset) registry.deregister(name);
  state.tools = new Map();
  state.registeredSha = undefined;
}

/** The isolate's sources. */
export const openApiSources = new OpenApiSources();
