/**
 * The search providers web_search can use, one function each, all answering the same ranked
 * list. Brave Search and Tavily are hosted APIs with a key; SearXNG is the metasearch engine
 * people host themselves (its JSON API must be enabled: `search.formats: [html, json]`).
 */
import { ToolFailureError } from "../../src/errors/tool-failure.ts";
import { readTextCapped } from "../../src/net/read-capped.ts";
import type { ToolContext } from "../../src/registry/types.ts";
import { checkedFetch } from "./checked-fetch.ts";
import { htmlTextReader } from "./html-to-markdown.ts";

/** A search API answers a few KiB; anything far beyond is not a search answer. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export type SearchProviderName = "brave" | "tavily" | "searxng";

/** Which variable each provider needs, in the order one is picked when none is configured. */
export const PROVIDER_VARS: Readonly<Record<SearchProviderName, string>> = { brave: "BRAVE_API_KEY", tavily: "TAVILY_API_KEY", searxng: "SEARXNG_URL" };

export interface SearchHit {
  rank: number;
  title: string;
  url: string;
  snippet: string;
}

export interface SearchRequest {
  query: string;
  count: number;
  /** The provider's variable: an API key, or SearXNG's base URL. */
  setting: string;
}

type Search = (ctx: ToolContext, request: SearchRequest) => Promise<SearchHit[]>;

/** Snippets arrive with highlighting markup (Brave's <strong>) and entities; the model wants text. */
function plain(htmlText: (fragment: string) => string, text: unknown): string {
  return typeof text === "string" ? htmlText(text) : "";
}

async function hits(items: unknown, count: number, snippetField: string): Promise<SearchHit[]> {
  if (!Array.isArray(items)) return [];
  const htmlText = await htmlTextReader();
  return items
    .filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null && typeof (item as { url?: unknown }).url === "string")
    .slice(0, count)
    .map((item, index) => ({ rank: index + 1, title: plain(htmlText, item.title), url: String(item.url), snippet: plain(htmlText, item[snippetField]) }));
}

async function answer(ctx: ToolContext, provider: SearchProviderName, response: Response): Promise<Record<string, unknown>> {
  if (response.ok) {
    // A proxy's login page or a misconfigured SearXNG answers 200 with HTML: an upstream
    // failure the model can read, not a handler crash.
    const { text, cut } = await readTextCapped(response, MAX_ANSWER_BYTES);
    let data: unknown;
    try {
      data = cut ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (typeof data === "object" && data !== null && !Array.isArray(data)) return data as Record<string, unknown>;
    const what = cut ? `more than ${MAX_ANSWER_BYTES} bytes` : `not a JSON object: ${text.slice(0, 200)}`;
    throw new ToolFailureError({ kind: "upstream", name: ctx.toolName, status: response.status, detail: `${provider} answered ${what}` });
  }
  const detail = (await response.text()).slice(0, 300);
  const hint = response.status === 401 || response.status === 403 ? ` (the ${provider} credential in ${PROVIDER_VARS[provider]} was refused)` : "";
  throw new ToolFailureError({ kind: "upstream", name: ctx.toolName, status: response.status, detail: `${provider}${hint}: ${detail}` });
}

const brave: Search = async (ctx, { query, count, setting }) => {
  const url = new URL("https://api.search.brave.com/res/v1/web/search");
  url.search = new URLSearchParams({ q: query, count: String(Math.min(count, 20)) }).toString();
  const response = await ctx.fetch(url, { headers: { accept: "application/json", "x-subscription-token": setting } });
  const data = await answer(ctx, "brave", response);
  return hits((data.web as { results?: unknown } | undefined)?.results, count, "description");
};

const tavily: Search = async (ctx, { query, count, setting }) => {
  const response = await ctx.fetch("https://api.tavily.com/search", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${setting}` },
    body: JSON.stringify({ query, max_results: Math.min(count, 20), search_depth: "basic" }),
  });
  return hits((await answer(ctx, "tavily", response)).results, count, "content");
};

const searxng: Search = async (ctx, { query, count, setting }) => {
  const url = new URL("search", setting.endsWith("/") ? setting : `${setting}/`);
  url.search = new URLSearchParams({ q: query, format: "json" }).toString();
  const response = await checkedFetch(ctx, url.href, { headers: { accept: "application/json" } }, { field: "SEARXNG_URL", follow: true });
  return hits((await answer(ctx, "searxng", response)).results, count, "content");
};

export const PROVIDERS: Readonly<Record<SearchProviderName, Search>> = { brave, tavily, searxng };
