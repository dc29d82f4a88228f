/**
 * The generator's consistency checks. Each failure points at the node that caused it, so a bad
 * tool or toolset fails the build (and the pre-test step) instead of a request at runtime.
 */
// Imported, not copied: presets.ts has no runtime imports, and a copied list would drift.
import { ALL_TOOLSETS } from "../../src/toolsets/all-toolsets.ts";
import { isPreset } from "../../src/toolsets/presets.ts";
import { checkAliases } from "./alias-checks.ts";
import { formatLocation, type GenError, type Registration, type StaticToolsetDecl, type StringRef } from "./types.ts";

/** Same rule as TOOL_NAME_PATTERN in src/registry/registry.ts (not imported: that pulls in zod). */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** One edge of a name graph, with the string that declared it (where a cycle is reported). */
interface Edge {
  to: string;
  ref: StringRef;
}

/**
 * Runs every check and returns the errors plus the registration that wins for each tool name.
 * `registrations` must be in import order: that order decides which same-toolset duplicate
 * the runtime keeps (the later one), as in Hermes.
 */
export function checkRegistry(
  registrations: readonly Registration[],
  toolsets: readonly StaticToolsetDecl[],
): { errors: GenError[]; winners: Map<string, Registration> } {
  const errors: GenError[] = [];
  const fail = (ref: StringRef, message: string): void => {
    errors.push({ ...ref.at, message });
  };

  // Mirrors Registry.register: same toolset replaces, another toolset is refused unless the
  // later spec says override: true.
  const winners = new Map<string, Registration>();
  for (const reg of registrations) {
    const name = reg.name.value;
    if (!TOOL_NAME_PATTERN.test(name)) {
      fail(reg.name, `"${name}" is not a valid tool name: names must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, '_' and '-', at most 64 characters).`);
    }
    const existing = winners.get(name);
    if (existing !== undefined && existing.toolset.value !== reg.toolset.value && !reg.override) {
      fail(
        reg.name,
        `tool "${name}" is registered in two toolsets: "${existing.toolset.value}" (${formatLocation(existing.name.at)}) and "${reg.toolset.value}" (${formatLocation(reg.name.at)}); rename one, or pass override: true to replace it on purpose.`,
      );
      continue;
    }
    winners.set(name, reg);
  }

  // A preset's name resolves to the preset before any other toolset (src/toolsets/resolve.ts),
  // so a toolset of that name would be silently unreachable.
  // `all` and `*` likewise stand for every tool.
  const shadower = (name: string): string | undefined =>
    isPreset(name)
      ? `the preset "${name}" (src/toolsets/presets.ts)`
      : ALL_TOOLSETS.has(name)
        ? `"${name}", which names every tool (src/toolsets/all-toolsets.ts),`
        : undefined;
  const shadowed = (by: string): string => `${by} has that name and always wins, so this toolset could never be named; choose another name`;
  for (const toolset of toolsets) {
    const name = toolset.name.value;
    const by = shadower(name);
    if (by !== undefined) fail(toolset.name, `static toolset "${name}" is shadowed: ${shadowed(by)}.`);
  }
  for (const reg of registrations) {
    const name = reg.toolset.value;
    const by = shadower(name);
    if (by !== undefined) fail(reg.toolset, `tool "${reg.name.value}" is registered in toolset "${name}", which is shadowed: ${shadowed(by)}.`);
  }

  const toolsetNames = new Set([...toolsets.map((t) => t.name.value), ...registrations.map((r) => r.toolset.value)]);
  const known = (names: Iterable<string>): string => {
    const sorted = [...names].sort();
    // A long tail of names hides the point of the message; twenty is enough to spot a typo.
    const shown = sorted.slice(0, 20).join(", ");
    return sorted.length === 0 ? "none" : sorted.length > 20 ? `${shown}, and ${sorted.length - 20} more` : shown;
  };
  const includeGraph = new Map<string, Edge[]>();
  for (const toolset of toolsets) {
    const edges: Edge[] = [];
    for (const include of toolset.includes) {
      if (toolsetNames.has(include.value)) edges.push({ to: include.value, ref: include });
      else fail(include, `toolset "${toolset.name.value}" includes "${include.value}", which is not a toolset (known: ${known(toolsetNames)}).`);
    }
    includeGraph.set(toolset.name.value, edges);
    for (const tool of toolset.tools) {
      if (!winners.has(tool.value)) {
        fail(tool, `toolset "${toolset.name.value}" lists tool "${tool.value}", which no file under tools/ registers; register it or remove it from the list.`);
      }
    }
  }
  for (const cycle of findCycles(includeGraph)) {
    fail(cycle.ref, `toolset include cycle: ${cycle.path.join(" -> ")}; remove one of these includes.`);
  }

  const dependencyGraph = new Map<string, Edge[]>();
  for (const reg of registrations) {
    for (const dep of reg.dependsOn) {
      if (!winners.has(dep.value)) {
        fail(dep, `tool "${reg.name.value}" depends on "${dep.value}", which no file under tools/ registers (known: ${known(winners.keys())}).`);
      }
    }
  }
  for (const [name, reg] of winners) {
    dependencyGraph.set(
      name,
      reg.dependsOn.filter((dep) => winners.has(dep.value)).map((dep) => ({ to: dep.value, ref: dep })),
    );
  }
  for (const cycle of findCycles(dependencyGraph)) {
    fail(cycle.ref, `dependsOn cycle: ${cycle.path.join(" -> ")}; a tool cannot wait for its own result.`);
  }
  errors.push(...checkAliases(toolsets, winners));
  return { errors, winners };
}

/**
 * Depth-first search that reports one cycle per back edge, as the path from the node it
 * returns to, round to that node again (`a -> b -> a`). Nodes are visited in map order, which
 * the callers keep deterministic.
 */
export function findCycles(graph: ReadonlyMap<string, readonly Edge[]>): { path: string[]; ref: StringRef }[] {
  const cycles: { path: string[]; ref: StringRef }[] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    stack.push(node);
    for (const edge of graph.get(node) ?? []) {
      const onStack = stack.indexOf(edge.to);
      if (onStack !== -1) cycles.push({ path: [...stack.slice(onStack), edge.to], ref: edge.ref });
      else if (!done.has(edge.to)) visit(edge.to);
    }
    stack.pop();
    done.add(node);
  };
  for (const node of graph.keys()) {
    if (!done.has(node)) visit(node);
  }
  return cycles;
}
