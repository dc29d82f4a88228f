/**
 * Example arguments from a JSON Schema: what the schema itself says (`example`, `examples`,
 * `default`, `const`, the first `enum` value) and, where it says nothing, the smallest value its
 * type and bounds allow. Two uses:
 * - an OpenAPI operation's ToolSpec.example, which the contract suite calls, so it must validate:
 *   a string whose `pattern` the spec gives no example for cannot be made up, and then there is
 *   no example rather than a wrong one;
 * - the example in an INVALID_ARGUMENTS hint for a tool without one (`placeholders`), where a
 *   value that cannot be made is shown as "…" for the model to fill in.
 *
 * Required arguments are always filled; optional ones only where the schema gives a value, so the
 * example reads as the schema's author would call it. Work is bounded by the schema, which the
 * registry and conversion already capped (MAX_ARGUMENT_VALUES), and by MAX_DEPTH through `$defs`.
 */
import type { JsonSchema } from "../registry/types.ts";
import { isPlainRecord } from "./coerce-scalars.ts";

/** Levels of schema followed, `$ref`s included: a recursive schema's example stops here. */
const MAX_DEPTH = 12;
/** Formats whose values no length or pattern rule describes, with a value of each. */
const FORMAT_VALUES: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00Z",
  email: "someone@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
};
/** Marks a value that cannot be made; never a JSON value, so it cannot collide with one. */
const NONE = Symbol("no example");
type Built = unknown | typeof NONE;

/** What a value that cannot be made becomes in a hint. */
const PLACEHOLDER = "…";

/** Example arguments for an object schema, or undefined when none can be made that validates. */
export function exampleArguments(inputSchema: JsonSchema): Record<string, unknown> | undefined {
  const built = valueOf(inputSchema, { defs: defsOf(inputSchema), placeholders: false }, 0);
  return built !== NONE && isPlainRecord(built) ? built : undefined;
}

/** Example arguments for a hint: always an object, "…" where no value can be made. */
export function exampleHint(inputSchema: JsonSchema): Record<string, unknown> {
  const built = valueOf(inputSchema, { defs: defsOf(inputSchema), placeholders: true }, 0);
  return isPlainRecord(built) ? built : {};
}

interface Walk {
  defs: Record<string, unknown>;
  /** Hint mode: "…" instead of giving up. */
  placeholders: boolean;
}

function defsOf(schema: JsonSchema): Record<string, unknown> {
  return isPlainRecord(schema.$defs) ? schema.$defs : {};
}

function given(schema: Record<string, unknown>): Built {
  if ("example" in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  return NONE;
}

function valueOf(schema: unknown, walk: Walk, depth: number): Built {
  const made = make(schema, walk, depth);
  return made === NONE && walk.placeholders ? PLACEHOLDER : made;
}

function make(schema: unknown, walk: Walk, depth: number): Built {
  if (!isPlainRecord(schema) || depth > MAX_DEPTH) return NONE;
  const ref = schema.$ref;
  if (typeof ref === "string") return ref.startsWith("#/$defs/") ? valueOf(walk.defs[ref.slice(8)], walk, depth + 1) : NONE;
  const stated = given(schema);
  if (stated !== NONE) return stated;
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 ? schema.enum[0] : NONE;
  if (Array.isArray(schema.allOf)) return merged(schema.allOf, walk, depth);
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    // A null option last: an example with a value says more.
    for (const option of [...options].sort((a, b) => Number(isNull(a)) - Number(isNull(b)))) {
      const value = valueOf(option, walk, depth + 1);
      if (value !== NONE) return value;
    }
    return NONE;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null") ?? (types.includes("null") ? "null" : undefined);
  if (type === "object" || (type === undefined && isPlainRecord(schema.properties))) return objectOf(schema, walk, depth);
  if (type === "string") return stringOf(schema);
  if (type === "integer" || type === "number") return numberOf(schema, type);
  if (type === "boolean") return true;
  if (type === "null") return null;
  if (type === "array") {
    const min = typeof schema.minItems === "number" ? schema.minItems : 0;
    const item = valueOf(schema.items, walk, depth + 1);
    if (item === NONE) return min === 0 ? [] : NONE;
    return Array.from({ length: Math.max(1, Math.min(min, 10)) }, () => item);
  }
  return NONE;
}

function isNull(schema: unknown): boolean {
  return isPlainRecord(schema) && schema.type === "null";
}

function objectOf(schema: Record<string, unknown>, walk: Walk, depth: number): Built {
  const properties = isPlainRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
  const object: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (required.has(name)) {
      const value = valueOf(property, walk, depth + 1);
      if (value === NONE) return NONE;
      object[name] = value;
    } else if (isPlainRecord(property)) {
      const value = given(property);
      if (value !== NONE) object[name] = value;
    }
  }
  // A required name with no schema of its own: any value is allowed, so a string will do.
  for (const name of required) if (!(name in object)) object[name] = "example";
  return object;
}

/** allOf's parts as one object: each part's example merged, so every part's required names are filled. */
function merged(parts: unknown[], walk: Walk, depth: number): Built {
  let object: Record<string, unknown> | undefined;
  for (const part of parts) {
    const value = valueOf(part, walk, depth + 1);
    if (value === NONE) return NONE;
    if (!isPlainRecord(value)) return parts.length === 1 ? value : NONE;
    object = { ...object, ...value };
  }
  return object ?? NONE;
}

function stringOf(schema: Record<string, unknown>): Built {
  const format = typeof schema.format === "string" ? FORMAT_VALUES[schema.format] : undefined;
  if (format !== undefined) return format;
  // A pattern is a language of its own: nothing here can promise a made-up value matches it.
  if (schema.pattern !== undefined) return NONE;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  if (min > 1_000) return NONE;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  const text = "example".padEnd(Math.min(min, 1_000), "x");
  return text.length > max ? text.slice(0, max) : text;
}

function numberOf(schema: Record<string, unknown>, type: "integer" | "number"): Built {
  const step = type === "integer" ? 1 : 0.5;
  // 1 where the bounds allow it (zod writes the whole safe-integer range for .int()), else the lowest allowed.
  let value = 1;
  if (typeof schema.minimum === "number" && schema.minimum > value) value = schema.minimum;
  if (typeof schema.exclusiveMinimum === "number" && schema.exclusiveMinimum >= value) value = schema.exclusiveMinimum + step;
  if (type === "integer") value = Math.ceil(value);
  const max = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - step : undefined;
  if (max !== undefined && value > max) {
    // Every allowed value is below 1: the highest.
    const highest = type === "integer" ? Math.floor(max) : max;
    const min = typeof schema.minimum === "number" ? schema.minimum : Number.NEGATIVE_INFINITY;
    if (highest < min) return NONE;
    value = highest;
  }
  if (typeof schema.multipleOf === "number" && value % schema.multipleOf !== 0) return NONE;
  return value;
}
