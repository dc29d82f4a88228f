/**
 * A tool's JSON Schema in Gemini's dialect: the OpenAPI 3.0 subset of `FunctionDeclaration.parameters`
 * (upper-case `type`, `nullable`, string-only `enum`, int64 counts as strings, no
 * `additionalProperties`, `const`, `oneOf`, `allOf`, `$ref` or type arrays). What Gemini cannot
 * say is converted to the nearest thing it can, and what would be lost entirely is moved into
 * the description, so the model still reads it; validation stays with the tool's own schema,
 * which is unchanged. docs/formats.md lists each conversion.
 */
import type { JsonSchema } from "../registry/types.ts";

/** Gemini's `Type` enum (the SDK's `Type`, minus TYPE_UNSPECIFIED). */
export type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL";

/** Gemini's `Schema` object, as far as we emit it. */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  items?: GeminiSchema;
  properties?: Record<string, GeminiSchema>;
  propertyOrdering?: string[];
  required?: string[];
  anyOf?: GeminiSchema[];
  minItems?: string;
  maxItems?: string;
  minLength?: string;
  maxLength?: string;
  minProperties?: string;
  maxProperties?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
}

const TYPES: Record<string, GeminiType> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};

/** Formats Gemini documents per type; any other is named in the description instead. */
const FORMATS: Partial<Record<GeminiType, readonly string[]>> = {
  STRING: ["enum", "date-time"],
  INTEGER: ["int32", "int64"],
  NUMBER: ["float", "double"],
};

/** `$ref` chains deeper than this (recursive schemas) end in a described OBJECT. */
const MAX_REF_DEPTH = 8;

const COUNTS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Converts a tool's parameters (a JSON Schema object) to Gemini's schema. */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
  const defs = isObject(schema.$defs) ? schema.$defs : isObject(schema.definitions) ? schema.definitions : {};
  return convert(schema, defs, 0);
}

function convert(schema: unknown, defs: Json, depth: number): GeminiSchema {
  if (schema === true || !isObject(schema)) return {};
  if (typeof schema.$ref === "string") return convertRef(schema, defs, depth);
  const notes: string[] = [];
  const out = typeOf(schema, defs, depth, notes);
  if (typeof schema.title === "string") out.title = schema.title;
  copyAnnotations(schema, out);
  copyConstraints(schema, out, notes);
  if (out.type === "OBJECT") copyObject(schema, out, defs, depth, notes);
  if (out.type === "ARRAY" && schema.items !== undefined) out.items = convert(schema.items, defs, depth);
  const description = [typeof schema.description === "string" ? schema.description : "", ...notes].filter(Boolean).join(" ");
  if (description !== "") out.description = description;
  return out;
}

/** `$ref` into `$defs` is inlined (Gemini has no references); a recursive one stops at MAX_REF_DEPTH. */
function convertRef(schema: Json, defs: Json, depth: number): GeminiSchema {
  const name = String(schema.$ref).replace(/^#\/(?:\$defs|definitions)\//, "");
  const target = defs[name];
  if (depth >= MAX_REF_DEPTH || target === undefined) {
    return { type: "OBJECT", description: `A ${name} object (its schema nests too deep to inline).` };
  }
  const { $ref: _ref, ...rest } = schema;
  return convert({ ...(isObject(target) ? target : {}), ...rest }, defs, depth + 1);
}

/** The type, from `type`, `const`, `enum`, or a union of either. */
function typeOf(schema: Json, defs: Json, depth: number, notes: string[]): GeminiSchema {
  if ("const" in schema) return enumOf([schema.const], notes);
  if (Array.isArray(schema.enum)) return enumOf(schema.enum, notes);
  const members = unionMembers(schema);
  if (members !== undefined) return unionOf(members, defs, depth, notes);
  if (Array.isArray(schema.allOf)) return mergeAll(schema.allOf, defs, depth);
  const type = typeof schema.type === "string" ? TYPES[schema.type] : undefined;
  if (type !== undefined) return { type };
  // No type at all: an object with properties is an object; otherwise any value goes.
  if (isObject(schema.properties)) return { type: "OBJECT" };
  return {};
}

/** `type: [a, b]`, `anyOf` and `oneOf` all become alternatives (Gemini's `anyOf`). */
function unionMembers(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema.type)) {
    // Each alternative keeps the type's own constraints; annotations stay on the whole.
    const { type, description: _d, title: _t, default: _df, examples: _e, example: _x, ...rest } = schema;
    return (type as unknown[]).map((t) => ({ ...rest, type: t }));
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf;
  if (Array.isArray(schema.oneOf)) return schema.oneOf;
  return undefined;
}

/** A `null` alternative becomes `nullable`; one alternative left is the schema itself. */
function unionOf(members: unknown[], defs: Json, depth: number, notes: string[]): GeminiSchema {
  const isNull = (m: unknown) => isObject(m) && (m.type === "null" || m.const === null);
  const nullable = members.some(isNull);
  const rest = members.filter((m) => !isNull(m)).map((m) => convert(m, defs, depth));
  const base: GeminiSchema = rest.length === 1 ? (rest[0] as GeminiSchema) : rest.length === 0 ? { type: "NULL" } : { anyOf: rest };
  if (rest.length > 1 && rest.every((m) => m.type === "STRING" && m.enum !== undefined && m.anyOf === undefined)) {
    // String enums and literals in a union: one enum says the same and every model reads it.
    const values = rest.flatMap((m) => m.enum ?? []);
    return { type: "STRING", format: "enum", enum: [...new Set(values)], ...(nullable ? { nullable: true } : {}) };
  }
  if (rest.length === 1 && base.description !== undefined) {
    // The member's own description is kept; the caller's joins it.
    notes.push(base.description);
    delete base.description;
  }
  return nullable ? { ...base, nullable: true } : base;
}

/** `allOf`: the members' properties and requirements merged into one object. */
function mergeAll(members: unknown[], defs: Json, depth: number): GeminiSchema {
  const merged: GeminiSchema = {};
  for (const member of members.map((m) => convert(m, defs, depth))) {
    Object.assign(merged, {
      ...member,
      properties: { ...merged.properties, ...member.properties },
      required: [...(merged.required ?? []), ...(member.required ?? [])],
    });
  }
  if (merged.required?.length === 0) delete merged.required;
  if (merged.properties !== undefined && Object.keys(merged.properties).length === 0) delete merged.properties;
  if (merged.properties === undefined) delete merged.propertyOrdering;
  else merged.propertyOrdering = Object.keys(merged.properties);
  return merged;
}

/** Gemini's `enum` holds strings only: other values keep their type and are listed in words. */
function enumOf(values: unknown[], notes: string[]): GeminiSchema {
  const present = values.filter((v) => v !== null);
  const nullable = present.length < values.length ? { nullable: true } : {};
  if (present.every((v) => typeof v === "string")) return { type: "STRING", format: "enum", enum: present as string[], ...nullable };
  const kinds = new Set(present.map((v) => (Number.isInteger(v) ? "integer" : typeof v)));
  const [kind] = kinds;
  notes.push(present.length === 1 ? `Must be ${JSON.stringify(present[0])}.` : `One of: ${present.map((v) => JSON.stringify(v)).join(", ")}.`);
  const type = kinds.size === 1 && kind !== undefined ? TYPES[kind] : undefined;
  return { ...(type === undefined ? {} : { type }), ...nullable };
}

function copyAnnotations(schema: Json, out: GeminiSchema): void {
  if ("default" in schema) out.default = schema.default;
  if ("example" in schema) out.example = schema.example;
  else if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];
}

function copyConstraints(schema: Json, out: GeminiSchema, notes: string[]): void {
  for (const key of COUNTS) {
    const value = schema[key];
    // int64 fields travel as strings in Gemini's JSON (proto3 JSON mapping), as its SDK types them.
    if (typeof value === "number" && Number.isInteger(value)) out[key] = String(value);
  }
  if (typeof schema.minimum === "number") out.minimum = schema.minimum;
  if (typeof schema.maximum === "number") out.maximum = schema.maximum;
  // Exclusive bounds have no field of their own: the bound is kept and the strictness said.
  if (typeof schema.exclusiveMinimum === "number") {
    out.minimum = schema.exclusiveMinimum;
    notes.push(`Greater than ${schema.exclusiveMinimum}.`);
  }
  if (typeof schema.exclusiveMaximum === "number") {
    out.maximum = schema.exclusiveMaximum;
    notes.push(`Less than ${schema.exclusiveMaximum}.`);
  }
  if (typeof schema.multipleOf === "number") notes.push(`A multiple of ${schema.multipleOf}.`);
  if (typeof schema.pattern === "string") out.pattern = schema.pattern;
  if (typeof schema.format === "string" && out.format === undefined) {
    if (out.type !== undefined && FORMATS[out.type]?.includes(schema.format)) out.format = schema.format;
    else notes.push(`Format: ${schema.format}.`);
  }
}

function copyObject(schema: Json, out: GeminiSchema, defs: Json, depth: number, notes: string[]): void {
  if (isObject(schema.properties)) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [name, property] of Object.entries(schema.properties)) properties[name] = convert(property, defs, depth);
    out.properties = properties;
    // Gemini orders a generated object's keys alphabetically unless told; keep the tool's order.
    out.propertyOrdering = Object.keys(properties);
  }
  if (Array.isArray(schema.required) && schema.required.length > 0) out.required = schema.required.filter((r): r is string => typeof r === "string");
  // A map (`additionalProperties` a schema, no fixed properties) has no Gemini form: say what its values are.
  const extra = schema.additionalProperties;
  if (out.properties === undefined && isObject(extra)) {
    const values = convert(extra, defs, depth);
    notes.push(`An object whose keys are free${values.type === undefined ? "" : ` and whose values are of type ${values.type.toLowerCase()}`}.`);
  }
}
