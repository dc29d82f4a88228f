/**
 * Where server configurations live: the `MCP_SERVERS` var (read-only, deployed with the Worker)
 * and KV, one key per server written through the admin API. A name in both is the var's: the
 * deployed configuration is what an operator reviewed.
 */
import { loadConfig } from "../../config/config.ts";
import { MCP_SERVER_PREFIX, mcpServerKey } from "../../storage/keys.ts";
import { type McpServerConfig, mcpServerConfigSchema } from "./server-config.ts";

export interface StoredMcpServer {
  config: McpServerConfig;
  createdAt: number;
  updatedAt: number;
}

export interface ConfiguredServer {
  config: McpServerConfig;
  source: "config" | "api";
}

/** Every configured server: the var's, then KV's not shadowed by them, sorted by name. */
export async function loadServers(env: Env): Promise<ConfiguredServer[]> {
  const fromVar = loadConfig(env).mcpServers.map((config) => ({ config, source: "config" as const }));
  const names = new Set(fromVar.map((server) => server.config.name));
  const fromKv: ConfiguredServer[] = [];
  let cursor: string | undefined;
  do {
    const page: KVNamespaceListResult<unknown> = await env.KV.list({ prefix: MCP_SERVER_PREFIX, ...(cursor === undefined ? {} : { cursor }) });
    const stored = await Promise.all(page.keys.map((key) => readStored(env.KV, key.name.slice(MCP_SERVER_PREFIX.length))));
    for (const record of stored) if (record !== null && !names.has(record.config.name)) fromKv.push({ config: record.config, source: "api" });
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return sortServers([...fromVar, ...fromKv]);
}

/** Sorted by name (code-unit order), as every listing of servers is. */
export function sortServers(servers: ConfiguredServer[]): ConfiguredServer[] {
  return servers.sort((a, b) => (a.config.name < b.config.name ? -1 : a.config.name > b.config.name ? 1 : 0));
}

/** One API-configured server's record; a record that no longer validates is skipped, loudly. */
export async function readStored(kv: KVNamespace, name: string): Promise<StoredMcpServer | null> {
  const record = await kv.get<StoredMcpServer>(mcpServerKey(name), "json");
  if (record === null) return null;
  const parsed = mcpServerConfigSchema().safeParse(record.config);
  if (!parsed.success) {
    console.error(`MCP server record '${name}' in KV is invalid and ignored: ${parsed.error.message}`);
    return null;
  }
  return { ...record, config: parsed.data };
}

export async function writeStored(kv: KVNamespace, record: StoredMcpServer): Promise<void> {
  await kv.put(mcpServerKey(record.config.name), JSON.stringify(record));
}

export async function deleteStored(kv: KVNamespace, name: string): Promise<void> {
  await kv.delete(mcpServerKey(name));
}
