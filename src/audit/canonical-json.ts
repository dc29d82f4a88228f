/**
 * Canonical JSON for hashing: object keys sorted by UTF-16 code units at every depth and no
 * whitespace, as RFC 8785 (JCS) orders them. Written out by hand because JSON.stringify always
 * puts integer-like keys ("2", "10") first, whatever order they were inserted in.
 *
 * One pass with a stack of its own: every piece goes into one list joined once at the end. A
 * writer that joins each container's text and hands it to its parent copies the text once per
 * level (64 times over under the arguments' depth cap), and recursing per level overflows the
 * native stack on the deep definitions a remote MCP server may send for pinning.
 */

/** A container being written: its keys (undefined for an array), the next child, and whether one was written. */
interface Level {
  value: object;
  keys: string[] | undefined;
  next: number;
  wrote: boolean;
}

/** A container still to open, or the finished text of a value, or undefined where JSON drops it. */
type Resolved = { open: object } | string | undefined;

/** Hops through toJSON before a chain that never reaches plain data is written as a cycle. */
const MAX_TO_JSON_HOPS = 64;

function resolve(start: unknown, ancestors: Set<object>): Resolved {
  let value = start;
  for (let hop = 0; hop <= MAX_TO_JSON_HOPS; hop++) {
    if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
    if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
    if (typeof value === "bigint") return JSON.stringify(value.toString());
    if (typeof value !== "object") return undefined;
    if (ancestors.has(value)) break;
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON !== "function") return { open: value };
    const next: unknown = toJSON.call(value);
    if (next === value) break;
    value = next;
  }
  return JSON.stringify("[Circular]");
}

/** The canonical JSON text of `value`; values JSON cannot hold are dropped as JSON.stringify drops them. */
export function canonicalJson(value: unknown): string {
  const pieces: string[] = [];
  const levels: Level[] = [];
  // Only a value inside itself is a cycle; the same object twice side by side is written twice.
  const ancestors = new Set<object>();
  const open = (container: object): void => {
    const isArray = Array.isArray(container);
    pieces.push(isArray ? "[" : "{");
    ancestors.add(container);
    levels.push({ value: container, keys: isArray ? undefined : Object.keys(container).sort(), next: 0, wrote: false });
  };
  const root = resolve(value, ancestors);
  if (root === undefined) return "null";
  if (typeof root === "string") return root;
  open(root.open);
  for (let level = levels.at(-1); level !== undefined; level = levels.at(-1)) {
    const { keys } = level;
    const length = keys === undefined ? (level.value as unknown[]).length : keys.length;
    if (level.next >= length) {
      pieces.push(keys === undefined ? "]" : "}");
      ancestors.delete(level.value);
      levels.pop();
      continue;
    }
    const at = level.next++;
    const key = keys === undefined ? at : keys[at];
    const child = key === undefined ? undefined : resolve((level.value as Record<string | number, unknown>)[key], ancestors);
    // An object drops a member JSON cannot hold; an array writes null in its place.
    if (child === undefined && keys !== undefined) continue;
    if (level.wrote) pieces.push(",");
    level.wrote = true;
    if (keys !== undefined) pieces.push(`${JSON.stringify(key)}:`);
    if (child === undefined) pieces.push("null");
    else if (typeof child === "string") pieces.push(child);
    else open(child.open);
  }
  return pieces.join("");
}
