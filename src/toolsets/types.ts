/** A toolset as written in static-toolsets.ts or created at runtime through the API. */
export interface StaticToolset {
  description: string;
  tools: readonly string[];
  includes: readonly string[];
  /** Its curated endpoint's names and descriptions; the generator checks them (scripts/gen-registry/alias-checks.ts). */
  aliases?: ToolAliases;
}

/** How a curated endpoint presents one of its tools: a name and/or a description for its audience. */
export interface ToolAlias {
  /** The name `/mcp/{toolset}` lists and answers to; the tool's own when absent. */
  name?: string;
  /** Replaces the tool's description in that endpoint's tools/list. */
  description?: string;
}

/** Aliases of a toolset, keyed by the real (registered) tool name. */
export type ToolAliases = Readonly<Record<string, ToolAlias>>;

/** A toolset definition with its curation: a static one's checked by the generator, a custom one's at registration. */
export interface ToolsetDefinition extends StaticToolset {
  aliases?: ToolAliases;
}

/** A toolset as the API shows it: its direct tools, its includes and what they resolve to. */
export interface ToolsetInfo {
  name: string;
  description: string;
  /** `preset`: its tools are the registered tools whose metadata it admits (presets.ts). */
  kind: "static" | "registry" | "preset" | "custom";
  tools: string[];
  includes: string[];
  resolvedTools: string[];
  /** Curated names and descriptions its MCP endpoint presents; empty for built-in toolsets. */
  aliases: ToolAliases;
}
