/**
 * Full-text search over the catalog's tools, for `tool_search`: names, descriptions and
 * parameter names, ranked by MiniSearch (BM25 with prefix and fuzzy matching) rather than a
 * scorer of our own. The index covers every registered tool and is built on the first search
 * after the registry changes (a registration, a federated server's tool list), so a key with
 * 500 tools pays for indexing once per catalog version, not per call; who may see a match is
 * decided per search, since one index serves every key.
 */
import MiniSearch from "minisearch";
import type { Registry } from "../registry/registry.ts";
import type { JsonSchema, ToolEntry } from "../registry/types.ts";

/** The name of the tool that searches this index (tools/tool-search.ts). */
export const TOOL_SEARCH = "tool_search";

/**
 * The toolset a deferred listing (`GET /v1/tools?defer=true`) keeps besides tool_search; the
 * rest is left to tool_search.
 */
export const DEFERRED_LISTING_TOOLSET = "core";

/** What one tool contributes to the index. */
interface ToolDocument {
  name: string;
  description: string;
  parameters: string;
}

/** One match: the tool's name and MiniSearch's relevance score (higher is better). */
export interface ToolMatch {
  name: string;
  score: number;
}

/** Nested object schemas are searched this deep: a field of a field is still a parameter name. */
const MAX_PARAMETER_DEPTH = 3;

/**
 * Distinct words of a query that are searched; the rest are dropped. Each word is a walk of the
 * whole term tree (prefix and fuzzy): 100 one-letter words over 2,000 tools took 1.3 s of
 * synchronous work, 10 words take a few milliseconds.
 */
const MAX_QUERY_TERMS = 10;

/** Shorter words match whole terms only: as a prefix, one letter matches most of the index. */
const MIN_PREFIX_CHARS = 3;

/** Where a name or description boosts a match over a parameter name. */
const BOOST = { name: 3, description: 1, parameters: 1.5 };

// Splits snake_case, kebab-case, camelCase and spaces alike, so `githubRepo`, `github_repo` and
// "GitHub repository" share terms; MiniSearch lower-cases each term afterwards.
const WORD_BOUNDARY = /[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u;

function tokenize(text: string): string[] {
  return text.split(WORD_BOUNDARY).filter((term) => term !== "");
}

/** The property names of a JSON Schema, nested objects and array items included. */
function parameterNames(schema: unknown, depth = 0, into: string[] = []): string[] {
  if (depth > MAX_PARAMETER_DEPTH || typeof schema !== "object" || schema === null) return into;
  const { properties, items } = schema as JsonSchema;
  if (typeof properties === "object" && properties !== null) {
    for (const [name, property] of Object.entries(properties)) {
      into.push(name);
      parameterNames(property, depth + 1, into);
    }
  }
  if (items !== undefined) parameterNames(items, depth + 1, into);
  return into;
}

function documentOf(entry: ToolEntry): ToolDocument {
  return { name: entry.name, description: entry.description, parameters: parameterNames(entry.parameters).join(" ") };
}

/** A search index over one version of a registry. */
export class ToolSearchIndex {
  readonly #index: MiniSearch<ToolDocument>;

  constructor(entries: Iterable<ToolEntry>) {
    this.#index = new MiniSearch<ToolDocument>({
      idField: "name",
      fields: ["name", "description", "parameters"],
      storeFields: [],
      tokenize,
      searchOptions: { boost: BOOST, prefix: true, fuzzy: 0.2, combineWith: "OR" },
    });
    this.#index.addAll([...entries].map(documentOf));
  }

  /**
   * Tools matching `query` that `visible` admits, best first. The filter runs inside the
   * search, so what a caller sees never depends on tools it may not see.
   */
  search(query: string, visible: (name: string) => boolean): ToolMatch[] {
    const terms = [...new Set(tokenize(query).map((term) => term.toLowerCase()))].slice(0, MAX_QUERY_TERMS);
    return this.#index
      .search(terms.join(" "), { filter: (result) => visible(String(result.id)), prefix: (term) => term.length >= MIN_PREFIX_CHARS })
      .map((result) => ({ name: String(result.id), score: result.score }));
  }
}

const built = new WeakMap<Registry, { generation: number; index: ToolSearchIndex }>();

/**
 * The index of `registry` as it is now: built on first use and again only after the registry
 * changed (its generation moved on), then shared by every request of the isolate.
 */
export function toolSearchIndex(registry: Registry): ToolSearchIndex {
  const cached = built.get(registry);
  if (cached !== undefined && cached.generation === registry.generation) return cached.index;
  const entries = registry.names().flatMap((name) => registry.get(name) ?? []);
  const index = new ToolSearchIndex(entries);
  built.set(registry, { generation: registry.generation, index });
  return index;
}
