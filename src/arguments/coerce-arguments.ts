/**
 * Repairs values a model sent with the wrong JSON type ("5" for an integer, "true" for a
 * boolean, a JSON array sent as text, a bare value where a list belongs) so the arguments
 * match the tool's JSON Schema before validation.
 *
 * A port of hermes `coerce_tool_args` (docs: shared/reference/hermes-tool-system.md §4) that
 * is pure, reads unions, and keeps what the model sent whenever the repair is ambiguous.
 * At each position of the value:
 *
 * 1. A value the schema already accepts is left alone. So a string is never read as a number
 *    where the schema also allows a string: "007" for integer-or-string stays "007" (#55369).
 *    Two exceptions, text models send meaning a value: exactly "null" where null is allowed,
 *    and a JSON array where an array is, become that value (`isTextMeantAsValue`).
 * 2. Otherwise every union branch (`anyOf`, `oneOf`, `type` arrays, `nullable`) tries a repair;
 *    the original only read a plain `type` (#23129). Preference: a repair the branch accepts,
 *    then wrapping a bare value in an array the branch accepts, then a partial repair (the
 *    right container with some bad elements, left for the validator to report), then a partial
 *    wrap. When two branches of the chosen tier disagree, the value is kept as sent.
 * 3. Repairs: strict numbers, booleans and the word null (see coerce-scalars.ts); JSON text
 *    parsed where an array or object belongs, its elements then repaired too (the original left
 *    them as sent); properties, `additionalProperties` schemas, `items` and `prefixItems`
 *    repaired recursively. Keys with no schema are not touched.
 */
import type { JsonSchema } from "../registry/types.ts";
import { isJsonText, isPlainRecord, parseJsonContainer, readScalar } from "./coerce-scalars.ts";
import { accepts, acceptsAsMeant, branchKinds, itemSchemaAt, jsonEqual, kindOf, propertySchemaFor, resolveSchema, unionBranches } from "./coerce-schema.ts";

/** One repair: where (dotted path such as `items.0.n`, empty for the root), from and to which type. */
export interface Coercion {
  path: string;
  from: string;
  to: string;
}

/** The repaired value (the same object when nothing changed) and what was repaired. */
export interface CoercionResult {
  value: unknown;
  coercions: Coercion[];
}

const MAX_ALL_OF_PASSES = 4;

/** Where the walk is: the root schema for `$ref`s, the current path, and where repairs are noted. */
interface Walk {
  root: JsonSchema;
  path: string;
  out: Coercion[];
}

/** One branch's try at a value: its result, the repairs it made, and whether the branch accepts it. */
interface Attempt {
  value: unknown;
  out: Coercion[];
  valid: boolean;
}

/**
 * Repairs string-typed values the model sent so they match the tool's JSON Schema. Never
 * throws and never mutates `args`; only the containers along repaired paths are copied.
 *
 * @example
 * coerceArguments({ limit: "5" }, { type: "object", properties: { limit: { type: "integer" } } });
 * // => { value: { limit: 5 }, coercions: [{ path: "limit", from: "string", to: "integer" }] }
 */
export function coerceArguments(args: unknown, schema: JsonSchema): CoercionResult {
  try {
    const out: Coercion[] = [];
    const value = coerceAt(args, schema, { root: schema, path: "", out }, NONE_ENTERED);
    return Object.is(value, args) ? { value: args, coercions: [] } : { value, coercions: out };
  } catch {
    // A schema or value shape nobody foresaw (or one nested past the stack): the arguments go
    // to the validator as sent, which then names the field that is wrong.
    return { value: args, coercions: [] };
  }
}

// `seen` holds the schemas already entered at this same position, so a schema cycle that does
// not descend into the value (allOf: [{$ref: "#"}]) stops instead of recursing forever. A short
// array (a position rarely enters more than two), shared while empty: most calls need no other.
const NONE_ENTERED: readonly JsonSchema[] = [];

function coerceAt(value: unknown, node: unknown, walk: Walk, seen: readonly JsonSchema[]): unknown {
  const schema = resolveSchema(node, walk.root);
  if (typeof schema === "boolean" || seen.includes(schema) || acceptsAsMeant(value, schema, walk.root)) return value;
  const inner = [...seen, schema];
  const branches = unionBranches(schema, walk.root);
  const repairs = attemptEach(value, branches, walk, (branch, w) => repairBranch(value, branch, w, inner));
  const valid = (a: Attempt) => a.valid;
  // Valid as sent but holding text meant as a value: only a reread the schema accepts is
  // taken, never a wrap or a partial repair of what already fitted.
  if (accepts(value, schema, walk.root)) return choose(value, [repairs.filter(valid)], walk);
  const wraps = canWrap(value)
    ? attemptEach(
        value,
        branches.filter((b) => branchKinds(b).includes("array")),
        walk,
        (b, w) => wrapInto(value, b, w),
      )
    : [];
  return choose(value, [repairs.filter(valid), wraps.filter(valid), repairs, wraps], walk);
}

// An attempt counts when it changed the value, or when the value is already of a kind the
// branch takes (a partial repair may have nothing left to do). Counting the latter keeps the
// function idempotent: a second call sees the same winner and no new rival. Object.is, so a
// NaN from a non-JSON caller does not count as a change.
function attemptEach(value: unknown, branches: JsonSchema[], walk: Walk, repair: (branch: JsonSchema, walk: Walk) => unknown): Attempt[] {
  return branches.flatMap((branch) => {
    const out: Coercion[] = [];
    const repaired = repair(branch, { ...walk, out });
    const changed = !Object.is(repaired, value);
    if (!changed && !admitsKindOf(branch, value)) return [];
    return [{ value: repaired, out, valid: changed && accepts(repaired, branch, walk.root) }];
  });
}

function choose(original: unknown, tiers: Attempt[][], walk: Walk): unknown {
  for (const [first, ...others] of tiers) {
    if (first === undefined) continue;
    // Branches repairing to different values: the schema cannot tell which one the model meant.
    if (!others.every((a) => jsonEqual(a.value, first.value))) return original;
    walk.out.push(...first.out);
    return first.value;
  }
  return original;
}

function admitsKindOf(branch: JsonSchema, value: unknown): boolean {
  const kinds = branchKinds(branch);
  const kind = kindOf(value);
  if (kinds.length === 0) return true;
  return kind !== undefined && (kinds.includes(kind) || (kind === "integer" && kinds.includes("number")));
}

/** Repairs `value` against one flattened branch (at most one `type`) and its `allOf` members. */
function repairBranch(value: unknown, branch: JsonSchema, walk: Walk, seen: readonly JsonSchema[]): unknown {
  const members = branch.allOf;
  if (!Array.isArray(members)) return repairOwn(value, branch, walk);
  // allOf members repair in turn, and a later one can hand an earlier one a shape it has not
  // seen (a wrap, a parse). Repeat until nothing changes, so a second call finds nothing to do;
  // drop a repair that does not settle, or that leaves a kind some member cannot take.
  const out: Coercion[] = [];
  const scratch = { ...walk, out };
  let current = value;
  for (let pass = 0; pass < MAX_ALL_OF_PASSES; pass++) {
    let next = repairOwn(current, branch, scratch);
    for (const member of members) next = coerceAt(next, member, scratch, seen);
    if (Object.is(next, current)) {
      if (!members.every((member) => schemaAdmitsKindOf(member, current, walk.root))) return value;
      walk.out.push(...out);
      return current;
    }
    current = next;
  }
  return value;
}

function repairOwn(value: unknown, branch: JsonSchema, walk: Walk): unknown {
  const kinds = branchKinds(branch);
  const admits = (kind: string) => kinds.length === 0 || kinds.includes(kind);
  if (typeof value === "string") return repairString(value, branch, kinds, walk);
  if (Array.isArray(value) && admits("array")) return repairItems(value, branch, walk);
  if (isPlainRecord(value) && admits("object")) return repairProperties(value, branch, walk);
  return value;
}

function schemaAdmitsKindOf(node: unknown, value: unknown, root: JsonSchema): boolean {
  const schema = resolveSchema(node, root);
  return typeof schema === "boolean" ? schema : unionBranches(schema, root).some((b) => admitsKindOf(b, value));
}

function repairString(text: string, branch: JsonSchema, kinds: string[], walk: Walk): unknown {
  for (const kind of kinds) {
    if (kind === "array" || kind === "object") {
      const parsed = parseJsonContainer(text, kind);
      if (parsed === undefined) continue;
      note(walk, "string", kind);
      return Array.isArray(parsed) ? repairItems(parsed, branch, walk) : repairProperties(parsed, branch, walk);
    }
    const scalar = readScalar(text, kind);
    // accepts() also holds enum/const: "1" becomes 1 only where 1 is allowed.
    if (scalar !== undefined && accepts(scalar.value, branch, walk.root)) {
      note(walk, "string", kind);
      return scalar.value;
    }
  }
  return text;
}

function repairItems(items: unknown[], branch: JsonSchema, walk: Walk): unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const repaired = coerceAt(item, itemSchemaAt(branch, i), at(walk, String(i)), NONE_ENTERED);
    if (!Object.is(repaired, item)) (copy ??= items.slice())[i] = repaired;
  }
  return copy ?? items;
}

function repairProperties(record: Record<string, unknown>, branch: JsonSchema, walk: Walk): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(record)) {
    const repaired = coerceAt(v, propertySchemaFor(branch, key), at(walk, key), NONE_ENTERED);
    if (Object.is(repaired, v)) continue;
    copy ??= { ...record };
    // defineProperty, not assignment: a key named "__proto__" must stay a plain property.
    Object.defineProperty(copy, key, { value: repaired, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? record;
}

// Null is "no value", not one element, so it is never wrapped. Text that only starts with "["
// ("[draft] notes.md", "[not json") is one element like any other, as the original wrapped it;
// a real JSON array that was not read (a number a double cannot hold) is not one element.
function canWrap(value: unknown): boolean {
  if (typeof value === "string") return !(value.trimStart().startsWith("[") && isJsonText(value));
  const kind = kindOf(value);
  return kind !== undefined && kind !== "null" && kind !== "array";
}

function wrapInto(value: unknown, branch: JsonSchema, walk: Walk): unknown[] {
  note(walk, kindOf(value) ?? typeof value, "array");
  return repairItems([value], branch, walk);
}

function note(walk: Walk, from: string, to: string): void {
  walk.out.push({ path: walk.path, from, to });
}

function at(walk: Walk, key: string): Walk {
  // Spelled out, not spread: this runs for every field of every call (outcome.ts says why).
  return { root: walk.root, path: walk.path === "" ? key : `${walk.path}.${key}`, out: walk.out };
}
