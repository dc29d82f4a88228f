/**
 * web_search: a query in, a ranked list of title, URL and snippet out, from the provider the
 * operator configured: WEB_SEARCH_PROVIDER names one, else the first of Brave Search
 * (BRAVE_API_KEY), Tavily (TAVILY_API_KEY) and SearXNG (SEARXNG_URL) whose variable is set.
 * With none set the tool is unavailable, and the reason names all three variables.
 */
import { z } from "zod";
import { loadConfig } from "../src/config/config.ts";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { checkOutboundUrl } from "../src/net/outbound-url.ts";
import { secretValue } from "../src/net/secret-headers.ts";
import { registry } from "../src/registry/registry.ts";
import type { ToolContext } from "../src/registry/types.ts";
import { PROVIDER_VARS, PROVIDERS, type SearchProviderName } from "./lib/search-providers.ts";

const ORDER: readonly SearchProviderName[] = ["brave", "tavily", "searxng"];
const EXAMPLE = { query: "cloudflare workers htmlrewriter streaming", count: 5 };

/** The configured provider and its variable's value; a provider named but not set up is a failure that says so. */
function provider(ctx: ToolContext): { name: SearchProviderName; setting: string } {
  const chosen = loadConfig(ctx.env).webSearchProvider;
  for (const name of chosen === undefined ? ORDER : [chosen]) {
    const setting = secretValue(ctx.env, PROVIDER_VARS[name]);
    if (setting !== undefined) return { name, setting };
  }
  const reason =
    chosen === undefined
      ? `no search provider is configured: set one of ${Object.values(PROVIDER_VARS).join(", ")}`
      : `WEB_SEARCH_PROVIDER is ${chosen} but ${PROVIDER_VARS[chosen]} is not set`;
  throw new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason });
}

registry.register({
  name: "web_search",
  toolset: "web",
  emoji: "🔎",
  // Tavily's API takes the query as a POST, but nothing is written: it belongs in `safe`.
  readOnly: true,
  requiresAnyEnv: Object.values(PROVIDER_VARS),
  example: EXAMPLE,
  worstInputs: [
    { name: "a 400-character query of 200 one-letter words, 20 results", args: () => ({ query: "a ".repeat(200).trim(), count: 20 }) },
    { name: "a 1 MiB query the 400-character cap refuses", args: () => ({ query: "q".repeat(1024 * 1024), count: 20 }) },
  ],
  schema: () =>
    z.object({
      query: z
        .string()
        .trim()
        .min(1)
        .max(400)
        .describe(`What to search the web for, 1-400 characters, as you would type it into a search engine. Example: "${EXAMPLE.query}".`),
      count: z.number().int().min(1).max(20).default(5).describe("How many results to return, 1-20 (default 5), best first."),
    }),
  description:
    "Searches the web and returns ranked results: rank (1 = best), title, url and snippet, plus which provider answered. " +
    `Read a result's page with web_extract. Example: ${JSON.stringify(EXAMPLE)}`,
  timeoutMs: 20_000,
  handler: async ({ query, count }, ctx) => {
    const { name, setting } = provider(ctx);
    if (name === "searxng") {
      const check = checkOutboundUrl(setting, loadConfig(ctx.env).outboundAllow);
      if (!check.ok)
        throw new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason: `SEARXNG_URL is refused by the outbound guard: ${check.reason}` });
    }
    const results = await PROVIDERS[name](ctx, { query, count, setting });
    return { query, provider: name, results };
  },
});
