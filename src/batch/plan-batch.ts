/**
 * Which calls of a batch must wait for which. Two kinds of edge:
 *
 * - dependency: tool B declares `dependsOn: [A]`; every call to B waits for every call to A in
 *   the batch, whatever order the model emitted them in, and inherits A's failure;
 * - resource: two calls touch one resource and at least one writes it; the later one waits,
 *   so a write-then-read pair cannot race (what users of other gateways report). Pure reads
 *   share nothing and stay parallel. A tool may name its resources from the call's arguments
 *   (`workspace:<path>`), so writes to two different files stay parallel too.
 *
 * Calls are ranked by a topological order of the dependency edges with ties broken by the
 * model's order; resource edges always point down that ranking, so the two kinds together can
 * never form a cycle.
 */
import { resolveResources } from "../registry/resources.ts";
import type { ToolEntry } from "../registry/types.ts";

export interface BatchPlan {
  /** For each call, the calls it must wait for. */
  waitsFor: number[][];
  /** For each call, the calls whose failure it inherits (its dependencies). */
  dependsOn: number[][];
  /** Start order among ready calls: lower first. */
  rank: number[];
}

/** What one call touches, its names resolved against its arguments. */
interface Touches {
  reads: readonly string[];
  writes: readonly string[];
}

function touchesOf(entry: ToolEntry | undefined, args: Record<string, unknown>): Touches | undefined {
  if (entry === undefined || (entry.reads === undefined && entry.writes === undefined)) return undefined;
  return { reads: resolveResources(entry.reads, args), writes: resolveResources(entry.writes, args) };
}

/** One name, or a `prefix*` name, covers the other. */
function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.endsWith("*") && b.startsWith(a.slice(0, -1))) return true;
  return b.endsWith("*") && a.startsWith(b.slice(0, -1));
}

function conflicts(a: Touches | undefined, b: Touches | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const touches = (t: Touches, resource: string) => t.reads.some((r) => overlaps(r, resource)) || t.writes.some((r) => overlaps(r, resource));
  return a.writes.some((r) => touches(b, r)) || b.writes.some((r) => touches(a, r));
}

/** Kahn's algorithm, lowest model index first; calls left in a cycle keep model order. */
function rankCalls(count: number, dependsOn: number[][]): number[] {
  const pending = dependsOn.map((deps) => deps.length);
  const dependents: number[][] = Array.from({ length: count }, () => []);
  dependsOn.forEach((deps, j) => deps.forEach((i) => dependents[i]?.push(j)));
  const rank = new Array<number>(count).fill(-1);
  let next = 0;
  for (;;) {
    let pick = -1;
    for (let i = 0; i < count; i++) {
      if (rank[i] === -1 && pending[i] === 0) {
        pick = i;
        break;
      }
    }
    if (pick === -1) break;
    rank[pick] = next++;
    for (const j of dependents[pick] ?? []) pending[j] = (pending[j] ?? 0) - 1;
  }
  // Only tools registered at run time can form a cycle (the generator refuses static ones).
  for (let i = 0; i < count; i++) {
    if (rank[i] === -1) {
      console.warn(`dependency cycle in batch at call ${i}; running it in model order`);
      rank[i] = next++;
      dependsOn[i] = (dependsOn[i] ?? []).filter((d) => (rank[d] ?? -1) !== -1 && (rank[d] ?? 0) < (rank[i] ?? 0));
    }
  }
  return rank;
}

/**
 * Plans the batch of calls named `names`; `args` are their arguments as sent, for tools whose
 * resources depend on them (a call without any touches only fixed names).
 */
export function planBatch(names: readonly string[], lookup: (name: string) => ToolEntry | undefined, args: readonly Record<string, unknown>[] = []): BatchPlan {
  const entries = names.map(lookup);
  const touches = entries.map((entry, i) => touchesOf(entry, args[i] ?? {}));
  const dependsOn = entries.map((entry, j) =>
    entry?.dependsOn === undefined || entry.dependsOn.length === 0
      ? []
      : names.flatMap((name, i) => (i !== j && entry.dependsOn?.includes(name) === true ? [i] : [])),
  );
  const rank = rankCalls(names.length, dependsOn);
  const waitsFor = dependsOn.map((deps) => new Set(deps));
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      if (!conflicts(touches[i], touches[j])) continue;
      const [first, second] = (rank[i] ?? 0) < (rank[j] ?? 0) ? [i, j] : [j, i];
      waitsFor[second]?.add(first);
    }
  }
  return { waitsFor: waitsFor.map((set) => [...set].sort((a, b) => a - b)), dependsOn, rank };
}
