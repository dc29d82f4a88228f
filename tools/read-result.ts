/**
 * Pages through a result that was too large to return inline. It is exempt from the size limit
 * (its own `limit` bounds it), so reading a stored result never stores another one.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";
import type { StoredResult } from "../src/results/limit-result.ts";
import { storedResultKey } from "../src/storage/keys.ts";

const MAX_PAGE = 50_000;

registry.register({
  name: "read_result",
  toolset: "results",
  emoji: "📖",
  readOnly: true,
  example: { handle: "0b6e7a52-3f43-4d38-9a0e-6f1f4c2b9d71", offset: 0, limit: 2000 },
  // A stored result's handle is random and only its call's answer carries it, so a setup call
  // cannot hand one to args: the costs here are the look-up and the refusals.
  worstInputs: [
    {
      name: "a page at the largest offset and limit of an unknown handle",
      args: () => ({ handle: crypto.randomUUID(), offset: Number.MAX_SAFE_INTEGER, limit: MAX_PAGE }),
    },
    { name: "a 1 MiB handle the uuid check refuses", args: () => ({ handle: "0".repeat(1024 * 1024) }) },
  ],
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  schema: () =>
    z.object({
      handle: z.uuid().describe("The handle from a truncated result."),
      offset: z.number().int().min(0).default(0).describe("First character to return (0-based)."),
      limit: z.number().int().min(1).max(MAX_PAGE).default(20_000).describe(`How many characters to return, at most ${MAX_PAGE}.`),
    }),
  description: "Reads part of a tool result that was too large to return inline, by character offset and limit.",
  handler: async ({ handle, offset, limit }, { env, mayUse }) => {
    const stored = await env.KV.get<StoredResult>(storedResultKey(handle), "json");
    // A result of a tool this key may not use is answered like a missing one, as resources/read
    // does over MCP: knowing a handle must not reveal what another key's tools returned.
    if (stored === null || !mayUse(stored.tool)) {
      return toolError(`No stored result with handle ${handle}; it may have expired. Run the original tool call again.`);
    }
    const content = stored.content.slice(offset, offset + limit);
    const next = offset + content.length;
    return {
      handle,
      tool: stored.tool,
      total_chars: stored.content.length,
      offset,
      returned_chars: content.length,
      next_offset: next < stored.content.length ? next : null,
      content,
    };
  },
});
