/**
 * Whether arguments need no coercion, read off the tool's zod schema instead of its JSON Schema.
 * The coerce stage walks the JSON Schema, and a tool's is derived from its zod schema at first
 * use (src/registry/deferred-entry.ts): on a cold isolate the first call paid for zod's JSON Schema
 * conversion only to find that nothing needed repair (issue 33).
 *
 * Only the plainest schemas are read: an object (no catch-all) of string, number and boolean
 * fields, each possibly optional or defaulted. For those, the derived JSON Schema is an object of
 * `string`, `number`/`integer` and `boolean` properties with the undefaulted, non-optional fields
 * `required`, and coerceArguments leaves arguments alone exactly when every field sent has the
 * right JSON type, every required one is present, and nothing else is sent (a string is never
 * text meant as a value there: no field allows null or an array). Anything else answers false,
 * and the call is coerced from the JSON Schema as before.
 */
import type { z } from "zod";
import { isPlainRecord } from "./coerce-scalars.ts";
import { kindOf } from "./coerce-schema.ts";

/** The part of a zod schema's internal definition read here (zod v4's `_zod.def`). */
interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  catchall?: unknown;
  innerType?: unknown;
}

const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;

/** A field's scalar type, and whether it may be left out; undefined for any other field schema. */
function fieldOf(schema: unknown): { type: string; optional: boolean } | undefined {
  let def = defOf(schema);
  let optional = false;
  while (def !== undefined && (def.type === "optional" || def.type === "default")) {
    optional = true;
    def = defOf(def.innerType);
  }
  if (def === undefined || (def.type !== "string" && def.type !== "number" && def.type !== "boolean")) return undefined;
  return { type: def.type, optional };
}

/** Whether `value` has the JSON type of a `type` field whether the schema says number or integer. */
function fitsType(value: unknown, type: string): boolean {
  const kind = kindOf(value);
  // An integer fits both `number` and `integer`; any other number is left to the full walk,
  // which knows which one the schema says.
  return type === "number" ? kind === "integer" : kind === type;
}

/**
 * True when `schema` is one this module reads and coerceArguments would return `args` as sent,
 * with no coercions, against the JSON Schema derived from it; false otherwise (including when
 * it would, but the schema is not one read here).
 */
export function fitsAsSent(args: unknown, schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def?.type !== "object" || def.catchall !== undefined || def.shape === undefined || !isPlainRecord(args)) return false;
  const shape = def.shape;
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(shape, key)) return false;
  }
  for (const key of Object.keys(shape)) {
    const field = fieldOf(shape[key]);
    if (field === undefined) return false;
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (value === undefined ? !field.optional : !fitsType(value, field.type)) return false;
  }
  return true;
}
