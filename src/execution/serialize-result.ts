/**
 * A handler may return a string (passed through) or plain JSON data (serialised). Anything
 * else is a contract error naming the tool and where the bad value sits, instead of JSON
 * quietly dropping a function or turning NaN into null.
 */

export type Serialized = { ok: true; content: string } | { ok: false; resultType: string };

/**
 * Levels of objects and arrays a result may nest, the result itself being the first. The walk
 * below keeps its own stack, but JSON.stringify after it, and the audit and the clients that
 * read the result, may recurse on the native stack; no tool's data comes near this cap, and a
 * remote or buggy tool that goes past it gets a contract error instead of an overflow.
 */
export const MAX_RESULT_DEPTH = 1_000;

/** What cannot be serialised; the path's segments are built only when something is found. */
interface Unserialisable {
  what: string;
  path: string[];
}

/** A container being walked: its keys (undefined for an array) and the next child to visit. */
interface Level {
  value: object;
  keys: string[] | undefined;
  next: number;
}

/** Why `value` itself cannot be serialised, ignoring its children; undefined when it can. */
function problemOf(value: unknown, depth: number, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : String(value);
    case "object": {
      if (value === null) return undefined;
      if (ancestors.has(value)) return "a circular reference";
      if (depth > MAX_RESULT_DEPTH) return `more than ${MAX_RESULT_DEPTH} levels of nesting`;
      if (Array.isArray(value)) return undefined;
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return (value as { constructor?: { name?: string } }).constructor?.name ?? "a class instance";
      return undefined;
    }
    default:
      return typeof value;
  }
}

/** Segments shown of a path; a path too deep to serialise would otherwise fill the message. */
const MAX_PATH_SEGMENTS = 16;

function segmentsOf(levels: Level[]): string[] {
  const shown = levels.slice(0, MAX_PATH_SEGMENTS).map(({ keys, next }) => (keys === undefined ? `[${next - 1}]` : `.${keys[next - 1]}`));
  if (levels.length > MAX_PATH_SEGMENTS) shown.push(`... (${levels.length - MAX_PATH_SEGMENTS} more levels)`);
  return shown;
}

/**
 * The first value that cannot be serialised, depth first in key order. One pass with a stack of
 * its own, so a result nested 100,000 deep is refused at MAX_RESULT_DEPTH, not by an overflow.
 */
function findUnserialisable(root: unknown): Unserialisable | undefined {
  const levels: Level[] = [];
  // Only a value inside itself is a cycle; the same object twice side by side serialises.
  const ancestors = new Set<object>();
  let value: unknown = root;
  for (;;) {
    const what = problemOf(value, levels.length + 1, ancestors);
    if (what !== undefined) return { what, path: segmentsOf(levels) };
    if (typeof value === "object" && value !== null) {
      ancestors.add(value);
      levels.push({ value, keys: Array.isArray(value) ? undefined : Object.keys(value), next: 0 });
    }
    let level = levels.at(-1);
    while (level !== undefined && level.next >= (level.keys ?? (level.value as unknown[])).length) {
      ancestors.delete(level.value);
      levels.pop();
      level = levels.at(-1);
    }
    if (level === undefined) return undefined;
    const at = level.next++;
    const key = level.keys === undefined ? at : level.keys[at];
    value = key === undefined ? undefined : (level.value as Record<string | number, unknown>)[key];
  }
}

/** Serialises a handler's return value, or names what cannot be serialised. */
export function serializeResult(value: unknown): Serialized {
  if (typeof value === "string") return { ok: true, content: value };
  const bad = findUnserialisable(value);
  if (bad !== undefined) return { ok: false, resultType: `${bad.what} at result${bad.path.join("")}` };
  return { ok: true, content: JSON.stringify(value) };
}
