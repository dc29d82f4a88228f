/**
 * Servers this isolate just wrote (a config) or deleted (null). KV's `list` may lag a write by
 * up to a minute, so until then this isolate's own change wins over what `list` says.
 */
import type { McpServerConfig } from "./server-config.ts";
import { type ConfiguredServer, sortServers } from "./server-store.ts";

/** KV's propagation bound: how long this isolate trusts its own writes over what `list` returns. */
const OWN_WRITE_TRUST_MS = 60_000;

export class OwnWrites {
  readonly #writes = new Map<string, { config: McpServerConfig | null; until: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Remembers that this isolate wrote (`config`) or deleted (`null`) the server `name`. */
  record(name: string, config: McpServerConfig | null): void {
    this.#writes.set(name, { config, until: this.#now() + OWN_WRITE_TRUST_MS });
  }

  /** Forgets every write, as when the storage they were laid over is emptied (Federation.reset). */
  forget(): void {
    this.#writes.clear();
  }

  /** The servers as loaded, with this isolate's recent writes and deletions laid over them. */
  applyTo(servers: ConfiguredServer[]): ConfiguredServer[] {
    const now = this.#now();
    let result = servers;
    for (const [name, write] of this.#writes) {
      if (now >= write.until) {
        this.#writes.delete(name);
        continue;
      }
      // Servers from the MCP_SERVERS var are never written through the API.
      if (result.some((s) => s.config.name === name && s.source === "config")) continue;
      result = result.filter((s) => s.config.name !== name);
      if (write.config !== null) result.push({ config: write.config, source: "api" });
    }
    return sortServers(result);
  }
}
