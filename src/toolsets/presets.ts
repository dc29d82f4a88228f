/**
 * Presets, like Hermes's: toolsets whose members are decided by what each tool declares about
 * itself, not by a list, so a tool added tomorrow lands in the right preset the day it is
 * registered. They resolve, include and compose like any other built-in toolset (a key may be
 * limited to `safe`; a custom toolset may include `agent` and a remote server's toolset).
 *
 * Both fail closed: a tool that does not declare `readOnly` is not `safe`, and neither preset
 * holds a `risky` tool, a test fixture, or a remote MCP server's tools (a key opts into those
 * by naming the server's toolset).
 */
import type { ToolEntry } from "../registry/types.ts";

export interface Preset {
  description: string;
  /** Whether a registered tool belongs to the preset. */
  admits(entry: ToolEntry): boolean;
}

/** Built-in tools only: a remote server's tools are trusted as far as a key names that server. */
const builtIn = (entry: ToolEntry): boolean => entry.fixture !== true && !entry.toolset.startsWith("mcp-");

export const PRESETS: Readonly<Record<string, Preset>> = {
  safe: {
    description: "Reading only: tools that declare `readOnly` (no stored writes, no HTTP but GET, no code), never a risky one.",
    admits: (entry) => builtIn(entry) && entry.readOnly === true && entry.risky !== true && (entry.writes?.length ?? 0) === 0,
  },
  agent: {
    description: "What a hosted agent gets by default: every built-in tool that needs no person's approval on every call (risky tools are left out).",
    admits: (entry) => builtIn(entry) && entry.risky !== true,
  },
};

/** True for a preset's name. */
export function isPreset(name: string): boolean {
  return Object.hasOwn(PRESETS, name);
}
