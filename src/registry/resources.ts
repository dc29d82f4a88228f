/**
 * The resource names a call touches (ToolSpec.reads / writes), derived from its arguments. Two
 * readers share it: batch planning, which orders conflicting calls, and the executor, which names
 * what a call that overran its deadline may have written.
 */
import type { Resources } from "./types.ts";

/** The names `resources` gives for `args`; `["*"]` (everything) when they cannot be derived. */
export function resolveResources(resources: Resources | undefined, args: Record<string, unknown>): readonly string[] {
  if (resources === undefined) return [];
  if (typeof resources !== "function") return resources;
  try {
    return resources(args);
  } catch (error) {
    // Fail safe: a call whose resources cannot be named is treated as touching all of them.
    console.warn(`resource names of a call could not be derived: ${String(error)}`);
    return ["*"];
  }
}
