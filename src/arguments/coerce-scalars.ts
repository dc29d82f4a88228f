/**
 * Strict readers for the text a model puts where a number, boolean, null or JSON container
 * belongs. Each returns `undefined` when the text is not unambiguously that value.
 *
 * The original (hermes `_coerce_number`) used Python `float()`, which also accepts `"1_000"`,
 * `"inf"`, `"nan"`, `"Infinity"`, and silently rounds big integers. These readers accept what
 * JSON would, plus surrounding whitespace, a leading `+`, leading zeros and a bare decimal
 * point on either side (`".5"`, `"5."`), as `float()` does. See docs/coercion.md.
 */

// JSON's number grammar, loosened by an optional "+", leading zeros ("007" in an integer-only
// field is still 7; in a union that accepts strings it is never read, see coerce-arguments.ts)
// and digits on one side of the point only: models write ".5" and "5." and mean the number.
// A point needs a digit somewhere, so "." and "5.e" stay text. No "_", hex or Infinity/NaN words.
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Reads a decimal number; `undefined` for non-JSON syntax, overflow, underflow or unsafe integers. */
export function parseDecimal(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return undefined;
  const n = Number(trimmed);
  // "1e400" overflows to Infinity (the original kept the string there too).
  if (!Number.isFinite(n)) return undefined;
  // "1e-400" underflows to 0: not the number that was written.
  if (n === 0 && /[1-9]/.test(trimmed.split(/[eE]/)[0] ?? "")) return undefined;
  // Above 2^53 a double cannot hold every integer: "12345678901234567890" would become
  // ...7168 (reference: big integers lose precision). Keep the string instead.
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return undefined;
  return n === 0 ? 0 : n; // "-0" reads as 0
}

/** Reads "true"/"false" in any case; "1", "0", "yes" are not booleans. */
export function parseBoolean(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (word === "true") return true;
  if (word === "false") return false;
  return undefined;
}

/** True for the word "null" in any case, which only means null where the schema allows it. */
export function isNullWord(text: string): boolean {
  return text.trim().toLowerCase() === "null";
}

/**
 * Reads text as a scalar of JSON Schema type `kind` (integer, number, boolean or null). Boxed,
 * so a null that was read (`{ value: null }`) differs from text that is not one (`undefined`).
 */
export function readScalar(text: string, kind: string): { value: unknown } | undefined {
  switch (kind) {
    case "integer":
    case "number": {
      const n = parseDecimal(text);
      return n === undefined ? undefined : { value: n };
    }
    case "boolean": {
      const b = parseBoolean(text);
      return b === undefined ? undefined : { value: b };
    }
    case "null":
      return isNullWord(text) ? { value: null } : undefined;
    default:
      return undefined;
  }
}

/**
 * Parses a JSON array (`kind` "array") or object (`kind` "object") sent as a string. Anything
 * else, including JSON of the other kind or with numbers a double cannot hold, is `undefined`.
 */
export function parseJsonContainer(text: string, kind: "array" | "object"): unknown[] | Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith(kind === "array" ? "[" : "{")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!holdsOnlyExactNumbers(parsed)) return undefined;
  if (kind === "array") return Array.isArray(parsed) ? parsed : undefined;
  return isPlainRecord(parsed) ? parsed : undefined;
}

/** Whether the text is JSON of any kind (what `JSON.parse` takes). */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A JSON object value: not null, not an array, not a Date or Map or class instance. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// JSON.parse turns 1e400 into Infinity and 12345678901234567890 into a rounded double; the
// same rule as parseDecimal applies to numbers inside a stringified container.
function holdsOnlyExactNumbers(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  if (Array.isArray(value)) return value.every(holdsOnlyExactNumbers);
  if (isPlainRecord(value)) return Object.values(value).every(holdsOnlyExactNumbers);
  return true;
}
