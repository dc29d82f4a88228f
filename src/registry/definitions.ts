/**
 * Tool definitions as the model sees them (reference §2.5): sorted by name, unknown names
 * skipped, unavailable tools skipped, dynamic overrides shallow-merged, and the name always the
 * registered one (the original let an override rename a tool; we do not).
 */
import { type Availability, availability } from "./availability.ts";
import { registry } from "./registry.ts";
import type { ToolDefinition, ToolEntry } from "./types.ts";

/** The static definition of one entry, before dynamic overrides. */
function staticDefinition(entry: ToolEntry): ToolDefinition {
  return { name: entry.name, description: entry.description, parameters: entry.parameters };
}

/** Applies an entry's dynamic overrides; a throw or a non-object is ignored with a warning. */
export function withOverrides(entry: ToolEntry, env: Env): ToolDefinition {
  const base = staticDefinition(entry);
  if (entry.dynamicSchemaOverrides === undefined) return base;
  let overrides: unknown;
  try {
    overrides = entry.dynamicSchemaOverrides(env);
  } catch (error) {
    console.warn(`dynamicSchemaOverrides of '${entry.name}' threw; using the static schema: ${String(error)}`);
    return base;
  }
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
    console.warn(`dynamicSchemaOverrides of '${entry.name}' returned ${Array.isArray(overrides) ? "an array" : typeof overrides}, not an object; ignored.`);
    return base;
  }
  return { ...base, ...(overrides as Partial<ToolDefinition>), name: entry.name };
}

/** The available entries among `names`, sorted by name; unknown names are skipped. */
export async function availableEntries(names: Iterable<string>, env: Env): Promise<ToolEntry[]> {
  const entries: ToolEntry[] = [];
  for (const name of new Set(names)) {
    const entry = registry.get(name);
    if (entry !== undefined) entries.push(entry);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const states = entries.map((entry) => availability.known(entry, env) ?? availability.of(entry, env));
  const available: ToolEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    // Most states are known already: awaiting a plain value still costs a microtask turn, a
    // thousand of them per listing of a large OpenAPI source.
    const known = states[i];
    const state = known instanceof Promise ? await known : known;
    const entry = entries[i];
    if (state?.available === true && entry !== undefined) available.push(entry);
  }
  return available;
}

/** Definitions of the available tools among `names`, sorted by name. */
export async function getDefinitions(names: Iterable<string>, env: Env): Promise<ToolDefinition[]> {
  return (await availableEntries(names, env)).map((entry) => withOverrides(entry, env));
}

/** One tool's definition with its availability, for `GET /v1/tools/{name}`. */
export async function describeTool(name: string, env: Env): Promise<{ entry: ToolEntry; definition: ToolDefinition; availability: Availability } | undefined> {
  const entry = registry.get(name);
  if (entry === undefined) return undefined;
  return { entry, definition: withOverrides(entry, env), availability: await availability.of(entry, env) };
}
