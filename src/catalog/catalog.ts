/**
 * The catalog: the registry as a request sees it, with remote MCP servers' tools synced in
 * first. Built once per isolate by the composition root; a request opens it once (the scope
 * builder does), so no door has to remember to federate before it looks a tool up.
 */
import type { ToolEntry } from "../registry/types.ts";

/** What the catalog needs of MCP federation (mcp/federation/federation.ts): bring remote tools up to date. */
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
  readonly #federation: RemoteTools;

  constructor(registry: CatalogView, federation: RemoteTools) {
    this.#registry = registry;
    this.#federation = federation;
  }

  /**
   * Syncs remote servers whose tool lists are due (free when none is: federation.ensure does
   * no I/O then) and answers the registry as it is now.
   */
  async open(env: Env): Promise<CatalogView> {
    await this.#federation.ensure(env);
    return this.#registry;
  }
}
