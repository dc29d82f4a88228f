/**
 * Toolset lookup and recursive resolution (reference §5.2-5.3).
 *
 * Three sources make one namespace: the static definitions, the toolsets tools register into,
 * and custom toolsets created at runtime (KV). A static toolset also gains any tool registered
 * under its name. Resolution is recursive, deduplicated and sorted; `all` and `*` resolve every
 * registered tool. Cycles and unknown includes are stopped by the generator for static
 * toolsets and by the API for custom ones; resolution still guards against them so a bad
 * record can never loop a request.
 */
import { registry } from "../registry/registry.ts";
import { ALL_TOOLSETS } from "./all-toolsets.ts";
import { isPreset, PRESETS } from "./presets.ts";
import { STATIC_TOOLSETS } from "./static-toolsets.ts";
import type { StaticToolset, ToolAliases, ToolsetDefinition, ToolsetInfo } from "./types.ts";

export { ALL_TOOLSETS } from "./all-toolsets.ts";

/** Every registered tool except fixtures (which only an explicit grant of their toolset reaches). */
function everyTool(): string[] {
  return registry.names().filter((name) => registry.get(name)?.fixture !== true);
}

/** Looks up custom toolsets; the route layer passes one backed by KV. */
export type CustomToolsetLookup = (name: string) => Promise<ToolsetDefinition | undefined>;

const noCustom: CustomToolsetLookup = () => Promise.resolve(undefined);

const staticToolsets: Readonly<Record<string, StaticToolset>> = STATIC_TOOLSETS;

/**
 * Resolutions that read only built-in toolsets, per registry generation: they change only when a
 * tool is registered or removed, and every request resolves its key's toolsets (tool-access.ts),
 * which showed in the /mcp profile. A custom toolset is never cached (KV is its truth), nor is any
 * resolution that reached one; built-in names shadow custom ones, so the two cannot mix up.
 */
let builtInClosures: { generation: number; tools: Map<string, readonly string[]> } = { generation: -1, tools: new Map() };

/** True for names that belong to the built-in namespace (static or registered toolsets). */
export function isBuiltInToolset(name: string): boolean {
  return ALL_TOOLSETS.has(name) || isPreset(name) || Object.hasOwn(staticToolsets, name) || registry.toolsets().includes(name);
}

/** A static toolset's aliases (static-toolsets.ts), or undefined: presets and registry toolsets have none. */
export function builtInAliases(name: string, table: Readonly<Record<string, StaticToolset>> = staticToolsets): ToolAliases | undefined {
  return Object.hasOwn(table, name) ? table[name]?.aliases : undefined;
}

/** Every built-in toolset name, sorted. */
export function builtInToolsetNames(): string[] {
  return [...new Set([...Object.keys(staticToolsets), ...Object.keys(PRESETS), ...registry.toolsets()])].sort();
}

/** A built-in toolset's own view: static tools merged with tools registered under its name. */
function builtIn(name: string): Omit<ToolsetInfo, "resolvedTools"> | undefined {
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (preset !== undefined) {
    const tools = registry.names().filter((tool) => {
      const entry = registry.get(tool);
      return entry !== undefined && preset.admits(entry);
    });
    return { name, description: preset.description, kind: "preset", tools, includes: [], aliases: {} };
  }
  const registered = registry.namesInToolset(name);
  const definition = Object.hasOwn(staticToolsets, name) ? staticToolsets[name] : undefined;
  if (definition !== undefined) {
    return {
      name,
      description: definition.description,
      kind: "static",
      tools: [...new Set([...definition.tools, ...registered])].sort(),
      includes: [...definition.includes],
      aliases: definition.aliases ?? {},
    };
  }
  if (registered.length === 0) return undefined;
  return { name, description: `Tools registered in toolset '${name}'`, kind: "registry", tools: registered, includes: [], aliases: {} };
}

/** Finds a toolset by name in any source; built-ins win over custom records. */
export async function findToolset(name: string, custom: CustomToolsetLookup = noCustom): Promise<Omit<ToolsetInfo, "resolvedTools"> | undefined> {
  return builtIn(name) ?? (await customToolset(name, custom));
}

async function customToolset(name: string, custom: CustomToolsetLookup): Promise<Omit<ToolsetInfo, "resolvedTools"> | undefined> {
  const record = await custom(name);
  if (record === undefined) return undefined;
  return { name, description: record.description, kind: "custom", tools: [...record.tools], includes: [...record.includes], aliases: record.aliases ?? {} };
}

/** Resolves a toolset to its sorted tool names; an unknown name resolves to undefined. */
export async function resolveToolset(name: string, custom: CustomToolsetLookup = noCustom): Promise<string[] | undefined> {
  if (ALL_TOOLSETS.has(name)) return everyTool();
  if (builtInClosures.generation !== registry.generation) builtInClosures = { generation: registry.generation, tools: new Map() };
  const closures = builtInClosures;
  const cached = closures.tools.get(name);
  if (cached !== undefined) return [...cached];
  const tools = new Set<string>();
  const visited = new Set<string>();
  let askedCustom = false;
  const visit = async (current: string): Promise<boolean> => {
    // A shared visited set dedupes diamonds and stops cycles (reference §5.3 rule 2).
    if (visited.has(current)) return true;
    visited.add(current);
    const found = builtIn(current);
    askedCustom ||= found === undefined;
    const toolset = found ?? (await customToolset(current, custom));
    if (toolset === undefined) return false;
    for (const tool of toolset.tools) tools.add(tool);
    for (const include of toolset.includes) await visit(include);
    return true;
  };
  if (!(await visit(name))) return undefined;
  const resolved = [...tools].sort();
  // Only a closure of built-in toolsets is kept: a custom one can change in KV at any time.
  if (!askedCustom && closures.generation === registry.generation) closures.tools.set(name, resolved);
  return [...resolved];
}

/** The full API view of one toolset. */
export async function toolsetInfo(name: string, custom: CustomToolsetLookup = noCustom): Promise<ToolsetInfo | undefined> {
  if (ALL_TOOLSETS.has(name)) {
    const all = everyTool();
    return { name, description: "Every registered tool (test fixtures aside).", kind: "static", tools: all, includes: [], resolvedTools: all, aliases: {} };
  }
  const toolset = await findToolset(name, custom);
  if (toolset === undefined) return undefined;
  return { ...toolset, resolvedTools: (await resolveToolset(name, custom)) ?? [] };
}
