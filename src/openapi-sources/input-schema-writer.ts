/**
 * Writes one operation's resolved schemas as plain JSON Schema for its tool. After
 * dereferencing, schemas are JavaScript objects that share parts and, for recursive schemas,
 * form cycles; a tool's input schema must be a tree. Shared parts are copied; a cycle is cut
 * where it closes, as a `$ref` to `#/$defs/<name>` at the input schema's root, so a recursive
 * schema stays exact (zod's JSON Schema importer, which validates these arguments, supports
 * local `$defs` references). Nothing is cut at a fixed depth.
 *
 * Work is bounded per operation: the writer stops at the caps the gateway holds arguments and
 * remote tools' schemas to (src/arguments/argument-shape.ts), so a spec whose few lines of
 * `$ref`s expand to millions of values costs at most the caps per operation.
 */
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES } from "../arguments/argument-shape.ts";
import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import { UNRESOLVED_REF } from "./unresolved-ref.ts";

/** Characters one `description` keeps; the rest of a long one is rarely read and costs every listing. */
export const MAX_SCHEMA_DESCRIPTION_CHARS = 1_000;

// Keywords whose values are schemas, maps of schemas, or lists of schemas (JSON Schema 2020-12).
const SCHEMA_VALUED = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
// OpenAPI's own annotations, and identifiers that would change what a `$ref` in the tool's schema points to.
const DROPPED = new Set(["xml", "externalDocs", "discriminator", "$id", "$schema", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions"]);

/** Writes the schemas of one operation; `problem` is set at the first thing that stops it. */
export class InputSchemaWriter {
  problem: string | undefined;
  private values = 0;
  private readonly ancestors = new Set<object>();
  private readonly defNames = new Map<object, string>();
  private readonly takenDefNames = new Set<string>();
  private readonly defsToWrite: object[] = [];

  private readonly refNames: ReadonlyMap<object, string>;

  /** @param refNames the `$ref` each resolved object was reached by (resolve-spec-refs.ts), to name `$defs`. */
  constructor(refNames: ReadonlyMap<object, string>) {
    this.refNames = refNames;
  }

  /** Values written so far (object members and array elements), for the source's own budget. */
  get valueCount(): number {
    return this.values;
  }

  /** `schema` as plain JSON, placed at container depth `depth` of the input schema; undefined once a problem is found. */
  schema(schema: unknown, depth: number): unknown {
    return this.writeSchema(schema, depth, false);
  }

  /** The `$defs` the written schemas refer to, written last (each may add more); undefined when there are none. */
  defs(): Record<string, unknown> | undefined {
    if (this.defsToWrite.length === 0) return undefined;
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < this.defsToWrite.length && this.problem === undefined; i++) {
      const target = this.defsToWrite[i] as object;
      // `$defs` is at depth 2 of the input schema, each definition at 3.
      setMember(defs, this.defNames.get(target) as string, this.writeSchema(target, 3, true));
    }
    return defs;
  }

  private writeSchema(schema: unknown, depth: number, isDefinition: boolean): unknown {
    if (this.problem !== undefined) return undefined;
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return this.data(schema, depth);
    const record = schema as Record<string, unknown>;
    const unresolved = record[UNRESOLVED_REF];
    if (typeof unresolved === "string") return this.stop(unresolved);
    if (typeof record.$ref === "string") return this.stop(`$ref '${record.$ref.slice(0, 200)}' was left unresolved`);
    if (!isDefinition && (this.ancestors.has(schema) || this.defNames.has(schema))) return { $ref: `#/$defs/${this.defName(schema)}` };
    if (!this.within(depth, 0)) return undefined;
    this.ancestors.add(schema);
    const out: Record<string, unknown> = {};
    const readOnly = new Set<string>();
    for (const [key, value] of Object.entries(record)) {
      if (DROPPED.has(key) || key.startsWith("x-")) continue;
      // The upgrader writes `required: []` for form bodies; draft-04 validators refuse an empty list.
      if (key === "required" && Array.isArray(value) && value.length === 0) continue;
      if (!this.within(depth, 1)) break;
      if (SCHEMA_MAPS.has(key) && isPlainRecord(value)) setMember(out, key, this.schemaMap(value, depth + 1, key === "properties" ? readOnly : undefined));
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) setMember(out, key, this.schemaList(value, depth + 1));
      else if (SCHEMA_VALUED.has(key))
        setMember(out, key, Array.isArray(value) ? this.schemaList(value, depth + 1) : this.writeSchema(value, depth + 1, false));
      else if (key === "description" && typeof value === "string") out.description = cut(value, MAX_SCHEMA_DESCRIPTION_CHARS);
      else setMember(out, key, this.data(value, depth + 1));
    }
    this.ancestors.delete(schema);
    // A property the server fills (readOnly, OpenAPI 3 "SHOULD NOT be sent in the request") is not offered to the model.
    if (readOnly.size > 0 && Array.isArray(out.required)) out.required = out.required.filter((name) => !readOnly.has(name as string));
    return out;
  }

  private schemaMap(map: Record<string, unknown>, depth: number, readOnly: Set<string> | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(map)) {
      if (readOnly !== undefined && isPlainRecord(value) && value.readOnly === true) {
        readOnly.add(name);
        continue;
      }
      if (!this.within(depth, 1)) break;
      setMember(out, name, this.writeSchema(value, depth + 1, false));
    }
    return out;
  }

  private schemaList(list: readonly unknown[], depth: number): unknown[] {
    const out: unknown[] = [];
    for (const value of list) {
      if (!this.within(depth, 1)) break;
      out.push(this.writeSchema(value, depth + 1, false));
    }
    return out;
  }

  /** A value that is data, not a schema (enum, default, examples...): copied as it is, within the caps. */
  private data(value: unknown, depth: number): unknown {
    if (typeof value !== "object" || value === null) return value;
    if (!this.within(depth, 0)) return undefined;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) {
        if (!this.within(depth, 1)) break;
        out.push(this.data(item, depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (!this.within(depth, 1)) break;
      setMember(out, key, this.data(item, depth + 1));
    }
    return out;
  }

  /** Counts `added` values at container depth `depth`; false, with the problem set, once past a cap. */
  private within(depth: number, added: number): boolean {
    if (this.problem !== undefined) return false;
    this.values += added;
    if (depth > MAX_ARGUMENT_DEPTH) this.problem = `its input schema nests deeper than ${MAX_ARGUMENT_DEPTH} levels once its $refs are resolved`;
    else if (this.values > MAX_ARGUMENT_VALUES) this.problem = `its input schema holds more than ${MAX_ARGUMENT_VALUES} values once its $refs are resolved`;
    return this.problem === undefined;
  }

  private stop(problem: string): undefined {
    this.problem ??= problem;
    return undefined;
  }

  private defName(target: object): string {
    const known = this.defNames.get(target);
    if (known !== undefined) return known;
    const ref = this.refNames.get(target) ?? "";
    const base = decodePointerToken(ref.slice(ref.lastIndexOf("/") + 1)).replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let n = 2; this.takenDefNames.has(name); n++) name = `${base}_${n}`;
    this.takenDefNames.add(name);
    this.defNames.set(target, name);
    this.defsToWrite.push(target);
    return name;
  }
}

// RFC 6901: `~1` is `/` and `~0` is `~` in a JSON pointer token.
function decodePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Sets a member, keeping a key named `__proto__` a member rather than the object's prototype. */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
