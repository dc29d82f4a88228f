/**
 * How deep a call's arguments nest, checked once, right after they are parsed, before any stage
 * walks them. The stages after (coercion, validation, the audit's redaction and hashing, the
 * approval's canonical JSON) recurse per level, and coercion rechecks a subtree at each level
 * under a self-referencing schema: 10,000 levels overflowed the stack in the audit and cost
 * quadratic time in coercion. No tool's schema comes near the cap.
 */

/** Levels of objects and arrays the arguments may nest, the arguments object itself being the first. */
export const MAX_ARGUMENT_DEPTH = 64;

/** A container met on the walk, linked to its parent so only a failing walk builds a path. */
interface Level {
  value: object;
  depth: number;
  key: string | number;
  parent: Level | undefined;
}

/**
 * The dotted path (such as `items.0.a`) of the first container nested deeper than `maxDepth`,
 * or undefined when none is. One pass with a stack of its own, so any depth is safe to walk.
 *
 * @example
 * pathPastDepth({ a: [[1]] }, 2); // => "a.0"
 */
export function pathPastDepth(root: object, maxDepth: number): string | undefined {
  const pending: Level[] = [{ value: root, depth: 1, key: "", parent: undefined }];
  for (let level = pending.pop(); level !== undefined; level = pending.pop()) {
    if (level.depth > maxDepth) return pathOf(level);
    const { value, depth } = level;
    // Indexed, not entries: a wide array of scalars allocates nothing here.
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (typeof child === "object" && child !== null) pending.push({ value: child, depth: depth + 1, key: i, parent: level });
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) pending.push({ value: child, depth: depth + 1, key, parent: level });
    }
  }
  return undefined;
}

function pathOf(level: Level): string {
  const keys: string[] = [];
  for (let at: Level | undefined = level; at?.parent !== undefined; at = at.parent) keys.push(shortKey(at.key));
  return keys.reverse().join(".");
}

// A key can be megabytes long; the path is for reading, so each key shows its start.
function shortKey(key: string | number): string {
  const text = String(key);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
