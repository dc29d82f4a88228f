/**
 * A key's memory as readers outside the tool get it (GET /v1/memory, the MCP resource
 * toolgate://memory): both stores, each with its entries and budget.
 */
import type { z } from "@hono/zod-openapi";
import type { MemorySnapshot, MemoryStoreView } from "./memory-api.ts";
import type { MemorySchema } from "./memory-wire-schema.ts";

const toStore = ({ entries, chars, limit }: MemoryStoreView) => ({ entries, entry_count: entries.length, chars, limit });

/** The wire shape of a key's memory. */
export function toMemoryWire(keyId: string, snapshot: MemorySnapshot): z.infer<typeof MemorySchema> {
  return { key_id: keyId, memory: toStore(snapshot.memory), user: toStore(snapshot.user) };
}
