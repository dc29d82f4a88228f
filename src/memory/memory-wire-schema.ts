/**
 * The zod schema of a key's memory as GET /v1/memory shows it, apart from memory-wire.ts: only
 * the route (loaded at its first request) needs it, while the wire form is built by the MCP
 * resource as well, which is imported at start-up (issue 33).
 */
import { z } from "@hono/zod-openapi";

const StoreSchema = z
  .object({
    entries: z.array(z.string()).openapi({ description: "The entries in the order they were added.", example: ["Prefers answers in British English."] }),
    entry_count: z.number().int(),
    chars: z.number().int().openapi({ description: 'Characters used: the entries joined by the 3-character separator "\\n§\\n", counted in code points.' }),
    limit: z.number().int().openapi({ description: "The store's budget in characters." }),
  })
  .openapi("MemoryStore");

export const MemorySchema = z
  .object({
    key_id: z.string().openapi({ description: "The API key whose memory this is.", example: "3f2a1c0b-9e88-4f61-9d7e-0b6a1d2e5b8c" }),
    memory: StoreSchema.openapi({ description: "The agent's own notes." }),
    user: StoreSchema.openapi({ description: "What the agent knows about the user." }),
  })
  .openapi("Memory");
