/**
 * A remote server's tool list, cached in KV (`mcp:tools:<server>`) so isolates and restarts
 * share one fetch per TTL. Freshness is judged from `fetchedAt`, never from the key's expiry:
 * KV's minimum TTL is 60 s and writes propagate eventually, so a value carries its own age.
 */
import { mcpToolsKey } from "../../storage/keys.ts";
import type { RemoteTool, TransportKind } from "../client/mcp-client.ts";

export interface CachedToolList {
  /** The URL the list came from: a list from a server's old URL is not reused after an edit. */
  url: string;
  transport: TransportKind;
  fetchedAt: number;
  tools: RemoteTool[];
}

/** Kept a day after its last write; freshness is decided by MCP_TOOLS_TTL_SECONDS. */
const KV_TTL_SECONDS = 86_400;

export async function readToolList(kv: KVNamespace, server: string): Promise<CachedToolList | null> {
  try {
    return await kv.get<CachedToolList>(mcpToolsKey(server), "json");
  } catch (error) {
    console.warn(`reading the cached tool list of MCP server '${server}' failed: ${String(error)}`);
    return null;
  }
}

export async function writeToolList(kv: KVNamespace, server: string, list: CachedToolList): Promise<void> {
  try {
    await kv.put(mcpToolsKey(server), JSON.stringify(list), { expirationTtl: KV_TTL_SECONDS });
  } catch (error) {
    // The list is still used from memory; other isolates fetch their own.
    console.warn(`caching the tool list of MCP server '${server}' failed: ${String(error)}`);
  }
}

export async function deleteToolList(kv: KVNamespace, server: string): Promise<void> {
  await kv.delete(mcpToolsKey(server));
}
