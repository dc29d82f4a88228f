/**
 * Build-time checks of a static toolset's aliases (its curated `/mcp/{toolset}` names), the same
 * rules POST /v1/toolsets applies to a custom one at run time (src/toolsets/tool-aliases.ts),
 * reported at the strings that break them: an alias of a tool the toolset does not hold, an
 * alias with neither name nor description, a name outside the tool name rule, and two tools
 * presented under one name (two aliases, or an alias and another tool's own name), naming both.
 */
import { formatLocation, type GenError, type Registration, type StaticToolsetDecl, type StringRef } from "./types.ts";

/** Same rule as TOOL_NAME_PATTERN in src/registry/registry.ts (not imported: that pulls in zod). */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Errors in the aliases of `toolsets`, given the registrations that won (their toolsets hold them too). */
export function checkAliases(toolsets: readonly StaticToolsetDecl[], winners: ReadonlyMap<string, Registration>): GenError[] {
  const errors: GenError[] = [];
  const fail = (ref: StringRef, message: string): void => {
    errors.push({ ...ref.at, message });
  };
  const byName = new Map(toolsets.map((toolset) => [toolset.name.value, toolset]));
  const registeredIn = new Map<string, string[]>();
  for (const [tool, reg] of winners) registeredIn.set(reg.toolset.value, [...(registeredIn.get(reg.toolset.value) ?? []), tool]);

  for (const toolset of toolsets) {
    if (toolset.aliases.length === 0) continue;
    const name = toolset.name.value;
    const members = membersOf(name, byName, registeredIn);
    // Each presented name, with the tool that claims it and where.
    const claimed = new Map<string, { tool: string; ref: StringRef }>();
    const renamed = new Set<string>();
    for (const alias of toolset.aliases) {
      const tool = alias.tool.value;
      if (!members.has(tool)) {
        fail(alias.tool, `toolset "${name}" has an alias for "${tool}", which is not one of its tools; alias only tools it lists, registers or includes.`);
        continue;
      }
      if (alias.name === undefined && alias.description === undefined) {
        fail(alias.tool, `toolset "${name}": the alias of "${tool}" needs a name, a description or both.`);
        continue;
      }
      const presented = alias.name ?? alias.tool;
      if (!TOOL_NAME_PATTERN.test(presented.value))
        fail(presented, `toolset "${name}": alias "${presented.value}" of "${tool}" must match ^[a-zA-Z0-9_-]{1,64}$.`);
      if (alias.name !== undefined && alias.name.value !== tool) renamed.add(tool);
      const other = claimed.get(presented.value);
      if (other !== undefined) {
        fail(
          presented,
          `toolset "${name}" presents two tools as "${presented.value}": "${tool}" here and "${other.tool}" (${formatLocation(other.ref.at)}); give each its own name.`,
        );
        continue;
      }
      claimed.set(presented.value, { tool, ref: presented });
    }
    // A tool that keeps its own name still holds it: no alias of another tool may take it.
    for (const [presented, { tool, ref }] of claimed) {
      if (presented !== tool && members.has(presented) && !renamed.has(presented)) {
        fail(
          ref,
          `toolset "${name}" presents "${tool}" as "${presented}", which is already the name of its tool "${presented}"; choose another name, or rename "${presented}" too.`,
        );
      }
    }
  }
  return errors;
}

/** The tools a static toolset resolves to: those it lists, those registered in it, and its includes', transitively. */
function membersOf(name: string, byName: ReadonlyMap<string, StaticToolsetDecl>, registeredIn: ReadonlyMap<string, readonly string[]>): Set<string> {
  const members = new Set<string>();
  const visited = new Set<string>();
  const visit = (current: string): void => {
    if (visited.has(current)) return;
    visited.add(current);
    for (const tool of registeredIn.get(current) ?? []) members.add(tool);
    const toolset = byName.get(current);
    for (const tool of toolset?.tools ?? []) members.add(tool.value);
    for (const include of toolset?.includes ?? []) visit(include.value);
  };
  visit(name);
  return members;
}
