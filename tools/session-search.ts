/**
 * session_search, Hermes's search over past conversations: full text over the calling key's
 * finished agent runs (their user messages, tool results, answers to the agent's questions and
 * final answers), best match first, each with a snippet and links to the run. Within
 * RUN_RETENTION_DAYS only; another key's runs are never found. The index is D1's FTS5
 * (src/agent/run-search.ts, docs/storage.md says why); the query's words are quoted, never syntax.
 */
import { z } from "zod";
import { ftsQueryOf, searchRuns } from "../src/agent/run-search.ts";
import { loadConfig } from "../src/config/config.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";

const DAY_MS = 86_400_000;
/** A snippet is FTS5's window of tokens around the match; a token can be long, so its characters are capped too. */
const MAX_SNIPPET_CHARS = 600;

registry.register({
  name: "session_search",
  toolset: "session_search",
  emoji: "🔎",
  readOnly: true,
  example: { query: "staging database migration", limit: 3 },
  worstInputs: [
    {
      name: "a query at its 500-character cap of quotes and FTS5 operators",
      args: () => ({ query: `"NEAR( * - : ^ AND OR NOT "`.repeat(20).slice(0, 500), limit: 10 }),
    },
    { name: "one 500-character word, ten results", args: () => ({ query: "a".repeat(500), limit: 10 }) },
  ],
  schema: () =>
    z
      .object({
        query: z
          .string()
          .trim()
          .min(1)
          .max(500)
          .describe("Words to find; a run matches when it has all of them (the first 12 count). Plain words, no operators."),
        limit: z.number().int().min(1).max(10).default(3).describe("How many runs to return, 1-10, best match first."),
      })
      .describe(
        "Searches your past agent runs (what the user wrote, tool results, answers and final replies) and returns the best matches with a snippet and a link each. Use it to recall what was said or decided in an earlier conversation.",
      ),
  handler: async ({ query, limit }, ctx) => {
    const fts = ftsQueryOf(query);
    if (fts === undefined) return toolError("The query has no word to search for (letters or digits).", { error_code: "INVALID_ARGUMENTS" });
    const since = Date.now() - loadConfig(ctx.env).runRetentionDays * DAY_MS;
    const hits = await searchRuns(ctx.env.DB, { keyId: ctx.keyId, query: fts, since, limit });
    if (hits.length === 0) return { query, count: 0, results: [], message: "No matching runs found." };
    const origin = ctx.origin ?? ctx.run?.origin ?? "";
    return {
      query,
      count: hits.length,
      results: hits.map((hit) => ({
        run_id: hit.run_id,
        session_id: hit.session_id,
        status: hit.status,
        when: new Date(hit.updated_at).toISOString(),
        snippet: hit.snippet.length > MAX_SNIPPET_CHARS ? `${hit.snippet.slice(0, MAX_SNIPPET_CHARS)}…` : hit.snippet,
        link: `${origin}/chat/runs/${encodeURIComponent(hit.run_id)}`,
        api: `/v1/runs/${encodeURIComponent(hit.run_id)}`,
      })),
    };
  },
});
