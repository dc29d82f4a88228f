/**
 * The catalog: the registry as a request sees it, with remote MCP servers' tools synced in
 * first. Built once per isolate by the composition root; a request opens it once (the scope
 * builder does), so no door has to remember to federate before it looks a tool up.
 */
import type { ToolEntry } from "../registry/types.ts";

/**
 * What the catalog needs of each source of tools registered at run time (MCP federation,
 * mcp/federation/federation.ts; OpenAPI sources, openapi-sources/runtime-sources.ts): bring its
 * tools up to date.
 */
export interface RemoteTools {
  ensure(env: Env): Promise<void>;
}

/** The tools one request may look up; synchronous, since the sync already happened. */
export interface CatalogView {
  get(name: string): ToolEntry | undefined;
  has(name: string): boolean;
  names(): readonly string[];
}

export class Catalog {
  readonly #registry: CatalogView;
  readonly #remote: readonly RemoteTools[];

  constructor(registry: CatalogView, remote: readonly RemoteTools[]) {
    this.#registry = registry;
    this.#remote = remote;
  }

  /**
   * Syncs remote tools that are due (free when none is: each ensure does no I/O then) and
   * answers the registry as it is now.
   */
  async open(env: Env): Promise<CatalogView> {
    for (const remote of this.#remote) await remote.ensure(env);
    return this.#registry;
  }
}
