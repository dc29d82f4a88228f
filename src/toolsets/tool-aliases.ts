/**
 * Curated endpoints: a toolset served at `/mcp/{toolset}` may present a tool under another name
 * and description (`mcp__github__create_issue` as `create_issue`), as MCP portals do. The alias
 * lives only at that endpoint; everything behind the door (policy, approvals, audit's `tool`)
 * sees the real name, so renaming a tool can never rename it out of a deny rule.
 */
import { TOOL_NAME_PATTERN } from "../registry/registry.ts";
import type { ToolAliases } from "./types.ts";

/** The two directions of one toolset's aliases, built once per request. */
export interface AliasTable {
  /** Presented name -> real tool name (only renamed tools). */
  readonly toReal: ReadonlyMap<string, string>;
  /** Real tool name -> how it is presented. */
  readonly presented: ReadonlyMap<string, { name: string; description: string | undefined }>;
}

export type AliasProblem = { kind: "invalid"; message: string } | { kind: "conflict"; message: string };

/**
 * Why `aliases` cannot be registered for a toolset resolving to `tools`, or undefined. An alias
 * must name a tool of the toolset, and no two of the endpoint's names may be equal (two aliases,
 * or an alias and another tool's real name): a call by that name would be ambiguous.
 */
export function aliasProblem(aliases: ToolAliases, tools: readonly string[]): AliasProblem | undefined {
  const members = new Set(tools);
  const claimedBy = new Map<string, string>();
  for (const [tool, alias] of Object.entries(aliases)) {
    if (!members.has(tool)) {
      return { kind: "invalid", message: `aliases.${tool}: '${tool}' is not a tool of this toolset; alias only tools it lists or includes.` };
    }
    if (alias.name === undefined && alias.description === undefined) {
      return { kind: "invalid", message: `aliases.${tool}: give a name, a description or both.` };
    }
    const name = alias.name ?? tool;
    if (!TOOL_NAME_PATTERN.test(name)) {
      return { kind: "invalid", message: `aliases.${tool}.name: '${name}' must match ^[a-zA-Z0-9_-]{1,64}$.` };
    }
    const other = claimedBy.get(name);
    if (other !== undefined) return { kind: "conflict", message: `aliases: '${tool}' and '${other}' are both presented as '${name}'; give each its own name.` };
    claimedBy.set(name, tool);
  }
  for (const tool of tools) {
    const claimer = claimedBy.get(tool);
    // A tool keeps its own name unless it is renamed; another tool may not take that name.
    if (claimer !== undefined && claimer !== tool && aliases[tool]?.name === undefined) {
      return { kind: "conflict", message: `aliases.${claimer}.name: '${tool}' is already the name of a tool of this toolset; choose another.` };
    }
  }
  return undefined;
}

/** The lookup tables of a toolset's aliases. */
export function aliasTable(aliases: ToolAliases): AliasTable {
  const toReal = new Map<string, string>();
  const presented = new Map<string, { name: string; description: string | undefined }>();
  for (const [tool, alias] of Object.entries(aliases)) {
    const name = alias.name ?? tool;
    if (name !== tool) toReal.set(name, tool);
    presented.set(tool, { name, description: alias.description });
  }
  return { toReal, presented };
}
