/**
 * Custom toolsets, created and deleted at runtime and kept in KV (one key per toolset, so two
 * creations at once never overwrite each other's record). Once created they resolve exactly
 * like static ones. A built-in name is refused: a custom record must never change what an
 * existing toolset means (the original silently overwrote built-ins, reference §5.5).
 */
import { registry, TOOL_NAME_PATTERN } from "../registry/registry.ts";
import { CUSTOM_TOOLSET_PREFIX, customToolsetKey } from "../storage/keys.ts";
import { builtInToolsetNames, type CustomToolsetLookup, isBuiltInToolset, resolveToolset } from "./resolve.ts";
import { aliasProblem } from "./tool-aliases.ts";
import type { ToolsetDefinition } from "./types.ts";

/** The JSON value stored under `toolset:custom:<name>`; `aliases` only when some were given. */
export interface CustomToolsetRecord extends ToolsetDefinition {
  createdAt: string;
}

export type CreateToolsetOutcome =
  | { ok: true; record: CustomToolsetRecord }
  | { ok: false; kind: "conflict"; message: string }
  | { ok: false; kind: "invalid"; message: string; field: string };

/** A lookup that reads each custom toolset from KV at most once per request. */
export function kvToolsetLookup(kv: KVNamespace): CustomToolsetLookup {
  const seen = new Map<string, Promise<ToolsetDefinition | undefined>>();
  return (name) => {
    // No custom toolset can have another name, and KV refuses keys over 512 bytes with an
    // exception: an odd name from a request must answer "unknown toolset", not a 500.
    if (!TOOL_NAME_PATTERN.test(name)) return Promise.resolve(undefined);
    let found = seen.get(name);
    if (found === undefined) {
      found = kv.get<CustomToolsetRecord>(customToolsetKey(name), "json").then((record) => record ?? undefined);
      seen.set(name, found);
    }
    return found;
  };
}

/** Creates a custom toolset after checking its name, tools and includes. */
export async function createCustomToolset(kv: KVNamespace, name: string, input: ToolsetDefinition): Promise<CreateToolsetOutcome> {
  if (!TOOL_NAME_PATTERN.test(name)) {
    return { ok: false, kind: "invalid", field: "name", message: `Toolset name '${name}' must match ^[a-zA-Z0-9_-]{1,64}$.` };
  }
  if (isBuiltInToolset(name)) {
    return { ok: false, kind: "conflict", message: `'${name}' is a built-in toolset; choose another name.` };
  }
  const lookup = kvToolsetLookup(kv);
  if ((await lookup(name)) !== undefined) {
    return { ok: false, kind: "conflict", message: `A custom toolset named '${name}' already exists; delete it first to redefine it.` };
  }
  const unknownTools = input.tools.filter((tool) => !registry.has(tool));
  if (unknownTools.length > 0) {
    return { ok: false, kind: "invalid", field: "tools", message: `Unknown tools: ${unknownTools.join(", ")}. GET /v1/tools lists the registered ones.` };
  }
  for (const include of input.includes) {
    if (include === name) {
      return { ok: false, kind: "invalid", field: "includes", message: `Toolset '${name}' cannot include itself.` };
    }
    if ((await resolveToolset(include, lookup)) === undefined) {
      return { ok: false, kind: "invalid", field: "includes", message: `Included toolset '${include}' does not exist. GET /v1/toolsets lists them.` };
    }
  }
  const aliases = input.aliases ?? {};
  if (Object.keys(aliases).length > 0) {
    // Checked against what the toolset resolves to, so an included tool may be curated too.
    const members = new Set(input.tools);
    for (const include of input.includes) for (const tool of (await resolveToolset(include, lookup)) ?? []) members.add(tool);
    const problem = aliasProblem(aliases, [...members]);
    if (problem !== undefined) return problem.kind === "conflict" ? { ok: false, ...problem } : { ok: false, ...problem, field: "aliases" };
  }
  const record: CustomToolsetRecord = {
    description: input.description,
    tools: [...new Set(input.tools)].sort(),
    includes: [...new Set(input.includes)],
    ...(Object.keys(aliases).length === 0 ? {} : { aliases }),
    createdAt: new Date().toISOString(),
  };
  await kv.put(customToolsetKey(name), JSON.stringify(record));
  return { ok: true, record };
}

/** Deletes a custom toolset; returns false when there was none of that name. */
export async function deleteCustomToolset(kv: KVNamespace, name: string): Promise<boolean> {
  if (!TOOL_NAME_PATTERN.test(name)) return false;
  const key = customToolsetKey(name);
  if ((await kv.get(key)) === null) return false;
  await kv.delete(key);
  return true;
}

/** Names of every custom toolset, sorted. */
export async function listCustomToolsetNames(kv: KVNamespace): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list({ prefix: CUSTOM_TOOLSET_PREFIX, ...(cursor === undefined ? {} : { cursor }) });
    for (const key of page.keys) names.push(key.name.slice(CUSTOM_TOOLSET_PREFIX.length));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return names.sort();
}

/** Every toolset name, built-in and custom, sorted: what GET /v1/toolsets lists and each has an MCP door. */
export async function listToolsetNames(kv: KVNamespace): Promise<string[]> {
  return [...new Set([...builtInToolsetNames(), ...(await listCustomToolsetNames(kv))])].sort();
}
