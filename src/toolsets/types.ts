/** A toolset as written in static-toolsets.ts or created at runtime through the API. */
export interface StaticToolset {
  description: string;
  tools: readonly string[];
  includes: readonly string[];
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
}
