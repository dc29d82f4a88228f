/**
 * The `pattern`s of an operation's input schema, checked on re2js before a request is sent.
 * The zod validator leaves patterns out (json-schema-validator.ts: the engine's backtracking
 * RegExp on a caller's value could hold the isolate), but toolgate must not send a value the
 * spec refuses, so they are checked here on a linear-time engine instead.
 *
 * The walk follows the value through properties, additionalProperties, items, prefixItems,
 * allOf and local `$ref`s; under anyOf/oneOf a value passes when one branch's patterns all hold
 * (which branch zod matched is not known here). A pattern RE2 cannot compile (lookaround,
 * backreferences) cannot be checked in linear time, so a value under it is refused, naming it.
 * patternProperties are not followed.
 */

import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import { resolveSchema } from "../arguments/coerce-schema.ts";
import type { FieldIssue } from "../errors/tool-failure.ts";
import type { JsonSchema } from "../registry/types.ts";
import { loadRe2, type Re2 } from "../runtime/re2.ts";

type Tester = (pattern: string, value: string) => boolean | "unsupported";

/** Whether a schema holds any `pattern`, per schema object: most have none, and then re2js is never loaded. */
const hasPatterns = new WeakMap<JsonSchema, boolean>();

function anyPattern(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(anyPattern);
  if (typeof schema !== "object" || schema === null) return false;
  return Object.entries(schema).some(([key, value]) => (key === "pattern" && typeof value === "string") || anyPattern(value));
}

const asSchema = (value: unknown): JsonSchema | undefined => (isPlainRecord(value) ? value : undefined);

/**
 * Schema nodes one call's check may visit. Each anyOf/oneOf branch re-walks the value, so nested
 * unions multiply; past this the value is refused as too complex to check, never sent unchecked.
 */
const MAX_VISITS = 20_000;

interface Walk {
  root: JsonSchema;
  test: Tester;
  out: FieldIssue[];
  visitsLeft: number;
}

/**
 * `refs`: the `$ref`s followed at this value's position, so a schema that refers back to itself
 * without descending into the value (`A: {allOf: [{$ref: A}]}`) ends instead of recursing forever.
 */
function walk(w: Walk, schema: JsonSchema | undefined, value: unknown, path: string, refs: ReadonlySet<string>, out: FieldIssue[]): void {
  if (schema === undefined) return;
  if (--w.visitsLeft < 0) {
    if (w.visitsLeft === -1) w.out.push({ path, message: "has a schema too complex to check its patterns safely, so it is not sent" });
    return;
  }
  if (typeof schema.$ref === "string" && !refs.has(schema.$ref)) {
    const target = resolveSchema(schema, w.root);
    walk(w, target === true || target === false ? undefined : target, value, path, new Set(refs).add(schema.$ref), out);
  }
  if (typeof value === "string" && typeof schema.pattern === "string") {
    const verdict = w.test(schema.pattern, value);
    if (verdict === "unsupported")
      out.push({ path, message: `must match the pattern ${schema.pattern}, which toolgate cannot check safely (it needs backtracking), so it is not sent` });
    else if (!verdict)
      out.push({ path, message: `must match the pattern ${schema.pattern}`, received: value.length > 100 ? `${value.slice(0, 100)}…` : value });
  }
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) walk(w, asSchema(part), value, path, refs, out);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [];
    if (branches.length === 0) continue;
    let first: FieldIssue[] | undefined;
    for (const branch of branches) {
      const found: FieldIssue[] = [];
      walk(w, asSchema(branch), value, path, refs, found);
      if (found.length === 0) {
        first = undefined;
        break;
      }
      first ??= found;
    }
    if (first !== undefined) out.push(...first);
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, i) => {
      walk(w, asSchema(i < prefix.length ? prefix[i] : schema.items), item, `${path}${path === "" ? "" : "."}${i}`, NO_REFS, out);
    });
  } else if (typeof value === "object" && value !== null) {
    const properties = asSchema(schema.properties) ?? {};
    const additional = asSchema(schema.additionalProperties);
    for (const [key, item] of Object.entries(value)) {
      const own = Object.hasOwn(properties, key) ? asSchema(properties[key]) : additional;
      walk(w, own, item, path === "" ? key : `${path}.${key}`, NO_REFS, out);
    }
  }
}

const NO_REFS: ReadonlySet<string> = new Set();

/** Compiled patterns, kept for the isolate: the patterns are those of the registered specs. */
const compiled = new Map<string, ReturnType<Re2["compile"]> | "unsupported">();

function testerFor(re2: Re2): Tester {
  return (pattern, value) => {
    let regex = compiled.get(pattern);
    if (regex === undefined) {
      try {
        regex = re2.compile(pattern);
      } catch {
        regex = "unsupported";
      }
      compiled.set(pattern, regex);
    }
    // JSON Schema patterns are unanchored (ECMA-262 semantics): a match anywhere counts.
    return regex === "unsupported" ? regex : regex.matcher(value).find();
  };
}

/** The arguments' values that break a `pattern` of `schema`; empty (and re2js not loaded) when it has none. */
export async function patternIssues(schema: JsonSchema, args: Record<string, unknown>): Promise<FieldIssue[]> {
  let any = hasPatterns.get(schema);
  if (any === undefined) {
    any = anyPattern(schema);
    hasPatterns.set(schema, any);
  }
  if (!any) return [];
  const w: Walk = { root: schema, test: testerFor(await loadRe2()), out: [], visitsLeft: MAX_VISITS };
  walk(w, schema, args, "", NO_REFS, w.out);
  return w.out;
}
