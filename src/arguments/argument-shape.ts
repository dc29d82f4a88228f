/**
 * How deep and how wide a call's arguments are, checked once, right after they are parsed,
 * before any stage walks them. The stages after (coercion, validation, the audit's redaction
 * and hashing, the approval's canonical JSON) each walk every value, several recursing per
 * level: 10,000 levels overflowed the stack in the audit, and an http_request body of 200,000
 * keys held the isolate for 5 s in workerd (coercion 0.7 s, validation 0.3 s, canonical JSON
 * 0.4 s, the approval's storage the rest), synchronous work no deadline can cut. No tool's
 * schema comes near either cap; a model writes far fewer values in one call.
 */

/** Levels of objects and arrays the arguments may nest, the arguments object itself being the first. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Values (array elements and object members, at every level) the arguments may hold. */
export const MAX_ARGUMENT_VALUES = 20_000;

/** Why arguments are refused before any stage walks them. */
export type ShapeProblem = { tooDeep: string } | { tooMany: true };

/** A container met on the walk, linked to its parent so only a failing walk builds a path. */
interface Level {
  value: object;
  depth: number;
  key: string | number;
  parent: Level | undefined;
}

/**
 * The first container nested deeper than MAX_ARGUMENT_DEPTH, as a dotted path (`items.0.a`),
 * or more than MAX_ARGUMENT_VALUES values; undefined when neither. One pass with a stack of its
 * own that stops at the first problem, so its cost is bounded by the caps, not by the input.
 *
 * @example
 * shapeProblem({ a: [1, 2] }); // => undefined
 */
export function shapeProblem(root: object): ShapeProblem | undefined {
  const pending: Level[] = [{ value: root, depth: 1, key: "", parent: undefined }];
  let values = 0;
  for (let level = pending.pop(); level !== undefined; level = pending.pop()) {
    if (level.depth > MAX_ARGUMENT_DEPTH) return { tooDeep: pathOf(level) };
    const { value, depth } = level;
    // Indexed, and the length counted before the loop: a wide array costs nothing past the cap.
    if (Array.isArray(value)) {
      values += value.length;
      if (values > MAX_ARGUMENT_VALUES) return { tooMany: true };
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (typeof child === "object" && child !== null) pending.push({ value: child, depth: depth + 1, key: i, parent: level });
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (++values > MAX_ARGUMENT_VALUES) return { tooMany: true };
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) pending.push({ value: child, depth: depth + 1, key, parent: level });
    }
  }
  return undefined;
}

/**
 * The value cap read from JSON text before it is parsed, so text past it costs no parse and no
 * walk: a V8 for-in over an object of 2,000,000 keys took 0.7 s in workerd (its keys are
 * collected and sorted before the first is seen). Each comma outside strings separates two
 * values, so commas are a lower bound; strings are skipped with indexOf, and the scan stops at
 * the cap. Depth is left to the walk after the parse, which names the path (V8 parses deep JSON
 * without recursion), and text that is not JSON to JSON.parse, which says where it broke.
 */
export function textHasTooManyValues(text: string): boolean {
  let commas = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i + 1);
      if (i === -1) return false;
    } else if (code === COMMA && ++commas >= MAX_ARGUMENT_VALUES) return true;
  }
  return false;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

/** Index of the quote that ends the string starting at `from`, or -1 when none does. */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
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
