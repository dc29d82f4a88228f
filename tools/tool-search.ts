/**
 * Finds tools in the caller's catalog and returns their full definitions: the tool-search
 * pattern, for keys with more tools than a model's context should carry. `GET /v1/tools?defer=true`
 * lists only the core toolset's tools and this one; the model asks for the rest when it needs them.
 *
 * It sees exactly what the calling key and the request's toolset may use (`ctx.mayUse`), and
 * only tools that are available now, as the listing does.
 */
import { z } from "zod";
import { DEFINITION_FORMATS, formatDefinitions } from "../src/formats/tool-definitions.ts";
import { availability } from "../src/registry/availability.ts";
import { withOverrides } from "../src/registry/definitions.ts";
import { registry } from "../src/registry/registry.ts";
import type { ToolDefinition } from "../src/registry/types.ts";

const MAX_LIMIT = 20;

registry.register({
  // A literal, as discovery needs; the gateway knows it as TOOL_SEARCH.
  name: "tool_search",
  toolset: "discovery",
  emoji: "🔎",
  readOnly: true,
  schema: () =>
    z.object({
      query: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .describe(
          "Words to look for in tool names, descriptions and parameter names, 1-200 characters, for example 'github repository stars'. Prefixes and small typos still match.",
        ),
      limit: z.number().int().min(1).max(MAX_LIMIT).default(5).describe(`How many tools to return, best match first, 1-${MAX_LIMIT}.`),
      format: z
        .enum(DEFINITION_FORMATS)
        .optional()
        .describe("Shape of the returned definitions. Defaults to the shape this call arrived in (MCP over /mcp, else the provider's tool-call shape)."),
    }),
  description:
    "Searches the tools you may use but were not given (the list may be deferred to save context) and returns their full definitions, best match first. Call it when no listed tool fits the task, then call the tool it returns.",
  example: { query: "repeat text", limit: 3 },
  worstInputs: [
    { name: "100 one-letter words, each a prefix of most terms", args: () => ({ query: "a b c d e f g h i j ".repeat(10).trim(), limit: MAX_LIMIT }) },
    { name: "one 200-letter word, fuzzy-matched at the widest edit distance", args: () => ({ query: "abcdefghij".repeat(20), limit: MAX_LIMIT }) },
    { name: "a 1 MiB query the 200-character cap refuses", args: () => ({ query: "word ".repeat(200_000) }) },
  ],
  handler: async ({ query, limit, format }, ctx) => {
    // Imported by the first search: MiniSearch and the index are a share of every cold isolate's
    // start-up otherwise (issue 33), and most isolates never search.
    const { TOOL_SEARCH, toolSearchIndex } = await import("../src/catalog/tool-search-index.ts");
    const matches = toolSearchIndex(registry).search(query, (name) => name !== TOOL_SEARCH && ctx.mayUse(name));
    const definitions: ToolDefinition[] = [];
    const entries = matches.flatMap((match) => registry.get(match.name) ?? []);
    // Checks not yet cached run a window at a time, as many as results are still missing: in
    // parallel, since each may be a probe of its own, but never more than the answer could use.
    for (let next = 0; next < entries.length && definitions.length < limit; ) {
      const window = entries.slice(next, next + limit - definitions.length);
      next += window.length;
      const states = await Promise.all(window.map((entry) => availability.known(entry, ctx.env) ?? availability.of(entry, ctx.env)));
      window.forEach((entry, i) => {
        if (states[i]?.available === true) definitions.push(withOverrides(entry, ctx.env));
      });
    }
    const shape = format ?? ctx.format;
    return {
      query,
      format: shape,
      tools: formatDefinitions(definitions, shape),
      ...(definitions.length === 0 ? { hint: "No tool you may use matches. Try other words, fewer words, or a verb for what the tool does." } : {}),
    };
  },
});
