/**
 * Just enough JSON Schema reading for argument coercion: local `$ref` resolution, flattening
 * of unions into branches, and a permissive structural check ("does this value already fit").
 *
 * The check looks at `type`, `nullable`, `enum`, `const`, `anyOf`/`oneOf`/`allOf`, `required`,
 * `properties`, `additionalProperties`, `items` and `prefixItems`; it ignores bounds, lengths,
 * patterns and formats, because coercion repairs types and the validator reports the rest.
 */
import type { JsonSchema } from "../registry/types.ts";
import { isPlainRecord, parseJsonContainer } from "./coerce-scalars.ts";

/** A JSON value's kind, with whole numbers reported as "integer". */
export type Kind = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/** A schema after `$ref` resolution: an object, or `true`/`false` (accept anything/nothing). */
export type Resolved = JsonSchema | boolean;

// Unions nested deeper than this are not flattened further (a guard against schema cycles
// that `$ref` tracking cannot see because each step builds a merged copy).
const MAX_UNION_DEPTH = 16;

/**
 * Follows local `$ref`s (`#` and `#/json/pointer`) from `root`, cycle-safe. An external,
 * broken or circular reference resolves to `true`: nothing is known, so nothing is repaired.
 * Keywords beside a `$ref` are ignored.
 */
export function resolveSchema(node: unknown, root: JsonSchema): Resolved {
  let current = node;
  const seen = new Set<string>();
  while (isPlainRecord(current) && typeof current.$ref === "string") {
    if (seen.has(current.$ref)) return true;
    seen.add(current.$ref);
    current = lookupPointer(root, current.$ref);
  }
  if (typeof current === "boolean") return current;
  return isPlainRecord(current) ? current : true;
}

function lookupPointer(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      // A malformed %-escape in a schema someone else wrote: a pointer to nothing, not a URIError.
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isPlainRecord(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * Splits a schema into the alternatives it allows: `anyOf`/`oneOf` members (merged over the
 * keywords beside them), each entry of a `type` array, and `{type:"null"}` for `nullable`.
 * Each branch has at most one `type` string. The original only read a plain `type`, so
 * `anyOf`-typed properties were never coerced (reference #23129).
 */
export function unionBranches(schema: JsonSchema, root: JsonSchema, depth = 0): JsonSchema[] {
  if (depth > MAX_UNION_DEPTH) return [];
  const { anyOf, oneOf, ...rest } = schema;
  const members = [anyOf, oneOf].filter(Array.isArray).flat();
  if (members.length > 0) {
    return members.flatMap((member) => {
      const resolved = resolveSchema(member, root);
      if (resolved === false) return [];
      return unionBranches(resolved === true ? rest : { ...rest, ...resolved }, root, depth + 1);
    });
  }
  if (schema.nullable === true) {
    const { nullable: _, ...base } = schema;
    return [...unionBranches(base, root, depth + 1), { type: "null" }];
  }
  if (Array.isArray(schema.type)) {
    return schema.type.filter((t) => typeof t === "string").map((t) => ({ ...schema, type: t }));
  }
  return [schema];
}

/** The kinds a flattened branch can take: its `type`, else what its enum/const/keywords imply. */
export function branchKinds(branch: JsonSchema): string[] {
  if (typeof branch.type === "string") return [branch.type];
  if ("const" in branch) return kindsOf([branch.const]);
  if (Array.isArray(branch.enum)) return kindsOf(branch.enum);
  if ("properties" in branch || "additionalProperties" in branch || "required" in branch) return ["object"];
  if ("items" in branch || "prefixItems" in branch) return ["array"];
  return [];
}

function kindsOf(values: unknown[]): string[] {
  return [...new Set(values.map(kindOf).filter((k) => k !== undefined))];
}

/** The JSON kind of a value, or `undefined` for things JSON cannot hold. */
export function kindOf(value: unknown): Kind | undefined {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : Number.isFinite(value) ? "number" : undefined;
  if (Array.isArray(value)) return "array";
  return isPlainRecord(value) ? "object" : undefined;
}

/** Whether a value is of a JSON Schema `type` name; unknown names do not constrain. */
export function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainRecord(value);
    case "string":
    case "boolean":
      return typeof value === type;
    default:
      return true;
  }
}

/** The schema for element `index` of an array: `prefixItems`, else `items` (or draft-07 tuples). */
export function itemSchemaAt(schema: JsonSchema, index: number): unknown {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
  if (index < prefix.length) return prefix[index];
  return Array.isArray(schema.items) ? schema.additionalItems : schema.items;
}

/** The schema for one key: its `properties` entry, else `additionalProperties` (maybe a boolean). */
export function propertySchemaFor(schema: JsonSchema, key: string): unknown {
  const properties = schema.properties;
  if (isPlainRecord(properties) && Object.hasOwn(properties, key)) return properties[key];
  return schema.additionalProperties;
}

/**
 * Whether text a schema may take as a string is one the model meant as a value: exactly `null`
 * where the schema also allows null, or a JSON array where it also allows an array. Not when a
 * branch names the text in its `enum` or `const`, since then the text is the value.
 */
export function isTextMeantAsValue(text: string, schema: JsonSchema, root: JsonSchema): boolean {
  // Only the exact word JSON's null is sent as: "NULL" or " null " in a text field may be a name.
  const kind = text === "null" ? "null" : text.trimStart().startsWith("[") ? "array" : undefined;
  if (kind === undefined) return false;
  const branches = unionBranches(schema, root);
  if (!branches.some((b) => branchKinds(b).includes(kind))) return false;
  if (branches.some((b) => ("const" in b && jsonEqual(b.const, text)) || (Array.isArray(b.enum) && b.enum.includes(text)))) return false;
  return kind === "null" || parseJsonContainer(text, "array") !== undefined;
}

/**
 * Whether `value` already fits `node` structurally (see the module comment for what is
 * checked). `undefined` properties count as absent, as JSON has none. `oneOf` is read as
 * `anyOf`: permissive, so that a value a validator accepts is never touched.
 */
export function accepts(value: unknown, node: unknown, root: JsonSchema, stack: JsonSchema[] = [], asMeant = false): boolean {
  const schema = resolveSchema(node, root);
  if (typeof schema === "boolean") return schema;
  // A schema cycle that never descends into the value (allOf: [{$ref: "#"}]) adds nothing.
  if (stack.includes(schema)) return true;
  if (asMeant && typeof value === "string" && isTextMeantAsValue(value, schema, root)) return false;
  // An array, not a Set: it holds the one or two schemas entered at this position, and every
  // call makes one per field of its arguments (as Sets, 650 B per echo call in the core
  // pipeline's allocation profile).
  stack.push(schema);
  try {
    return fitsKeywords(value, schema, root, stack, asMeant) && fitsChildren(value, schema, root, asMeant);
  } finally {
    stack.pop();
  }
}

/**
 * `accepts`, except that text the model meant as a value (`isTextMeantAsValue`) does not fit
 * as sent, so coercion goes in and rereads it.
 */
export function acceptsAsMeant(value: unknown, node: unknown, root: JsonSchema): boolean {
  return accepts(value, node, root, [], true);
}

function fitsKeywords(value: unknown, schema: JsonSchema, root: JsonSchema, stack: JsonSchema[], asMeant: boolean): boolean {
  if ("const" in schema && !jsonEqual(value, schema.const)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((member) => jsonEqual(value, member))) return false;
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (types !== undefined) {
    const allowed = schema.nullable === true ? [...types, "null"] : types;
    if (!allowed.some((t) => typeof t === "string" && isOfType(value, t))) return false;
  }
  const fitsOne = (members: unknown) => !Array.isArray(members) || members.some((m) => accepts(value, m, root, stack, asMeant));
  if (!fitsOne(schema.anyOf) || !fitsOne(schema.oneOf)) return false;
  return !Array.isArray(schema.allOf) || schema.allOf.every((m) => accepts(value, m, root, stack, asMeant));
}

function fitsChildren(value: unknown, schema: JsonSchema, root: JsonSchema, asMeant: boolean): boolean {
  if (Array.isArray(value)) {
    return value.every((item, i) => accepts(item, itemSchemaAt(schema, i), root, [], asMeant));
  }
  if (!isPlainRecord(value)) return true;
  const present = (key: unknown) => typeof key === "string" && Object.hasOwn(value, key) && value[key] !== undefined;
  if (Array.isArray(schema.required) && !schema.required.every(present)) return false;
  return Object.entries(value).every(([key, v]) => v === undefined || accepts(v, propertySchemaFor(schema, key), root, [], asMeant));
}

/** Deep equality over JSON values (used for `enum`, `const` and comparing candidate repairs). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b || Object.is(a, b)) return true; // 0 equals -0, as in JSON; NaN equals itself
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isPlainRecord(a) || !isPlainRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}
