import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { coerceArguments } from "../../src/arguments/coerce-arguments.ts";
import type { JsonSchema } from "../../src/registry/types.ts";

const fromZod = (schema: z.ZodType): JsonSchema => z.toJSONSchema(schema, { io: "input" });
const object = (properties: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: "object", properties, ...extra });
/** Coerces `{ v: value }` against `{ v: schema }` and returns the repaired `v`. */
const field = (value: unknown, schema: JsonSchema): unknown => {
  const { value: result } = coerceArguments({ v: value }, object({ v: schema }));
  return (result as { v?: unknown }).v;
};

describe("numbers", () => {
  it("reads a decimal string in an integer field as an integer", () => {
    expect(coerceArguments({ limit: "5" }, fromZod(z.object({ limit: z.number().int() })))).toEqual({
      value: { limit: 5 },
      coercions: [{ path: "limit", from: "string", to: "integer" }],
    });
  });

  it.each([
    ["3.0", 3],
    ["1e5", 100000],
    ["+7", 7],
    ["-12", -12],
    ["  42\n", 42],
    ["-0", 0],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
  ])("reads %j as the whole number %d in an integer field", (text, expected) => {
    expect(field(text, { type: "integer" })).toBe(expected);
  });

  it("keeps a fraction in an integer field as the string the model sent", () => {
    expect(field("1.5", { type: "integer" })).toBe("1.5");
  });

  it.each(["1_000", "inf", "-Infinity", "Infinity", "nan", "NaN", "0x1A", "", "   ", "1e400", "1e-400", "1,000", "٣", ".", "5.e", "-.", ".e1", "1..2"])(
    "keeps %j as a string because it is no decimal number (Python float() accepts some)",
    (text) => {
      expect(field(text, { type: "number" })).toBe(text);
    },
  );

  it.each([
    [".5", 0.5],
    ["5.", 5],
    ["-.25", -0.25],
    ["+.5", 0.5],
    [" 5. ", 5],
    ["5.e3", 5000],
    [".5e1", 5],
  ])("reads %j, digits on one side of the point only, as the number %d (Python float() does)", (text, expected) => {
    expect(field(text, { type: "number" })).toBe(expected);
  });

  it('reads "5." as 5 in an integer field, and keeps ".5" there because it is a fraction', () => {
    expect(field("5.", { type: "integer" })).toBe(5);
    expect(field(".5", { type: "integer" })).toBe(".5");
  });

  it("keeps an integer beyond 2^53 as a string instead of rounding it (big integers lose precision)", () => {
    expect(field("12345678901234567890", { type: "integer" })).toBe("12345678901234567890");
    expect(field("9007199254740993", { type: "number" })).toBe("9007199254740993");
  });

  it("keeps decimals as floats in a number field", () => {
    expect(field("2.5", { type: "number" })).toBe(2.5);
    expect(field("-1.25e-3", { type: "number" })).toBe(-0.00125);
  });

  it("never turns a number into a string in a string field", () => {
    expect(field(5, { type: "string" })).toBe(5);
  });
});

describe("booleans and null", () => {
  it.each([
    ["true", true],
    ["FALSE", false],
    [" True ", true],
  ])("reads %j as a boolean", (text, expected) => {
    expect(field(text, { type: "boolean" })).toBe(expected);
  });

  it.each(["1", "0", "yes", "no", ""])("keeps %j as a string in a boolean field", (text) => {
    expect(field(text, { type: "boolean" })).toBe(text);
  });

  it("turns the word null into null where the schema allows null", () => {
    expect(field(" NULL ", fromZod(z.number().int().nullable()))).toBeNull();
  });

  it("keeps the word null where the schema does not allow null", () => {
    expect(field("null", { type: "integer" })).toBe("null");
    expect(field("null", { type: "string" })).toBe("null");
  });

  it('turns "null" into null in a nullable string field, since models send it meaning no value', () => {
    expect(coerceArguments({ label: "null" }, fromZod(z.object({ label: z.string().nullable() })))).toEqual({
      value: { label: null },
      coercions: [{ path: "label", from: "string", to: "null" }],
    });
    expect(field("null", { type: ["string", "null"] })).toBeNull();
    expect(field("null", { type: "string", nullable: true })).toBeNull();
  });

  it("keeps other spellings of null and other text in a nullable string field, where they may be names", () => {
    const schema = fromZod(z.string().nullable());
    expect(field("NULL", schema)).toBe("NULL");
    expect(field(" null ", schema)).toBe(" null ");
    expect(field("none", schema)).toBe("none");
    expect(field("", schema)).toBe("");
  });

  it('keeps "null" where a nullable enum lists the word itself', () => {
    expect(field("null", fromZod(z.enum(["null", "auto"]).nullable()))).toBe("null");
  });

  it('turns "null" into null inside valid arguments, leaving the rest as sent', () => {
    const args = {
      rows: [
        { id: 1, label: "null" },
        { id: 2, label: "x" },
      ],
      q: "null",
    };
    const schema = fromZod(z.object({ rows: z.array(z.object({ id: z.number().int(), label: z.string().nullable() })), q: z.string() }));
    const { value } = coerceArguments(args, schema);
    expect(value).toEqual({
      rows: [
        { id: 1, label: null },
        { id: 2, label: "x" },
      ],
      q: "null",
    });
    expect((value as typeof args).rows[1]).toBe(args.rows[1]);
  });
});

describe("arrays", () => {
  it("wraps a bare value in an array and repairs the element", () => {
    expect(coerceArguments({ ids: "7" }, fromZod(z.object({ ids: z.array(z.number().int()) })))).toEqual({
      value: { ids: [7] },
      coercions: [
        { path: "ids", from: "string", to: "array" },
        { path: "ids.0", from: "string", to: "integer" },
      ],
    });
  });

  it("wraps an object where a list of objects is expected", () => {
    expect(field({ n: 1 }, { type: "array", items: { type: "object" } })).toEqual([{ n: 1 }]);
  });

  it('wraps a bare value for a ["array","null"] type (the original never did)', () => {
    expect(field("a.txt", { type: ["array", "null"], items: { type: "string" } })).toEqual(["a.txt"]);
  });

  it("wraps a bare value for an anyOf of array and null (a nullable zod array)", () => {
    expect(field("a.txt", fromZod(z.array(z.string()).nullable()))).toEqual(["a.txt"]);
  });

  it("parses a whole array sent as a JSON string and repairs its elements (the original left them)", () => {
    expect(coerceArguments({ ids: '["1", 2, " 3 "]' }, object({ ids: { type: "array", items: { type: "integer" } } }))).toEqual({
      value: { ids: [1, 2, 3] },
      coercions: [
        { path: "ids", from: "string", to: "array" },
        { path: "ids.0", from: "string", to: "integer" },
        { path: "ids.2", from: "string", to: "integer" },
      ],
    });
  });

  it("wraps text that only starts with '[' as one element, like any other bare value (as the original did)", () => {
    expect(coerceArguments({ paths: "[draft] notes.md" }, fromZod(z.object({ paths: z.array(z.string()) })))).toEqual({
      value: { paths: ["[draft] notes.md"] },
      coercions: [{ path: "paths", from: "string", to: "array" }],
    });
    expect(field("[not json", { type: "array" })).toEqual(["[not json"]);
  });

  it("wraps a broken JSON array too, leaving its one bad element for the validator to name", () => {
    expect(field("[1, 2", { type: "array", items: { type: "integer" } })).toEqual(["[1, 2"]);
  });

  it("keeps text starting with '[' where the field takes a string, and where no array is expected", () => {
    expect(field("[not json", { anyOf: [{ type: "string" }, { type: "array" }] })).toBe("[not json");
    expect(field("[not json", { type: "integer" })).toBe("[not json");
  });

  it("keeps a JSON array holding a number a double cannot represent as the string", () => {
    expect(field("[12345678901234567890]", { type: "array" })).toBe("[12345678901234567890]");
  });

  it("does not wrap null", () => {
    expect(field(null, { type: "array" })).toBeNull();
  });

  it("repairs the elements of an array the model sent as an array", () => {
    expect(field(["true", false, "FALSE"], { type: "array", items: { type: "boolean" } })).toEqual([true, false, false]);
  });

  it("repairs each tuple position against its prefixItems schema", () => {
    expect(field(["1", "true", "x"], fromZod(z.tuple([z.number(), z.boolean(), z.string()])))).toEqual([1, true, "x"]);
  });
});

describe("objects", () => {
  it("parses an object sent as a JSON string where an object is expected", () => {
    expect(field('{"min": "2"}', fromZod(z.object({ min: z.number().int() })))).toEqual({ min: 2 });
  });

  it("leaves JSON-looking text in a string field as text", () => {
    expect(field('{"a": 1}', { type: "string" })).toBe('{"a": 1}');
  });

  it("repairs nested properties and array elements, reporting dotted paths", () => {
    const schema = fromZod(z.object({ items: z.array(z.object({ n: z.number().int(), on: z.boolean() })) }));
    expect(
      coerceArguments(
        {
          items: [
            { n: "1", on: true },
            { n: 2, on: "false" },
          ],
        },
        schema,
      ),
    ).toEqual({
      value: {
        items: [
          { n: 1, on: true },
          { n: 2, on: false },
        ],
      },
      coercions: [
        { path: "items.0.n", from: "string", to: "integer" },
        { path: "items.1.on", from: "string", to: "boolean" },
      ],
    });
  });

  it("parses JSON strings nested in a list where the item schema expects a container", () => {
    const schema = fromZod(z.object({ rows: z.array(z.object({ id: z.number().int() })) }));
    expect(coerceArguments({ rows: ['{"id": "4"}'] }, schema).value).toEqual({ rows: [{ id: 4 }] });
  });

  it("leaves keys without a property schema untouched", () => {
    expect(coerceArguments({ extra: "5" }, fromZod(z.object({ n: z.number() }))).value).toEqual({ extra: "5" });
  });

  it("repairs extra keys when additionalProperties is a schema", () => {
    expect(coerceArguments({ a: "1", b: "2" }, fromZod(z.record(z.string(), z.number().int()))).value).toEqual({ a: 1, b: 2 });
  });

  it("keeps a __proto__ key a plain property when repairing a sibling", () => {
    const args = JSON.parse('{"__proto__": "x", "n": "1"}') as unknown;
    const { value } = coerceArguments(args, object({ n: { type: "integer" } }));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.entries(value as object)).toEqual([
      ["__proto__", "x"],
      ["n", 1],
    ]);
  });
});

describe("unions", () => {
  it('reads "42" for an integer-or-null anyOf (reference #23129: anyOf was ignored)', () => {
    expect(field("42", fromZod(z.number().int().nullable()))).toBe(42);
  });

  it('keeps "007" for a string-or-integer union: a string the schema accepts is left alone (#55369)', () => {
    expect(field("007", fromZod(z.union([z.string(), z.number().int()])))).toBe("007");
    expect(field("42", { type: ["integer", "string"] })).toBe("42");
  });

  it('reads "true" for anyOf boolean-or-array as true, not as a one-element list (#123345)', () => {
    expect(field("true", { anyOf: [{ type: "boolean" }, { type: "array", items: { type: "string" } }] })).toBe(true);
  });

  it("reads a JSON array string as the array for a string-or-array anyOf (reference #23129: MCP servers rejected it)", () => {
    const schema = fromZod(z.object({ urls: z.union([z.string(), z.array(z.string())]) }));
    expect(coerceArguments({ urls: '["https://a.example", "https://b.example"]' }, schema)).toEqual({
      value: { urls: ["https://a.example", "https://b.example"] },
      coercions: [{ path: "urls", from: "string", to: "array" }],
    });
  });

  it('reads a JSON array string as the array for a ["string","array"] type list, repairing its elements', () => {
    expect(field(' ["1", 2] ', { type: ["string", "array"], items: { type: "integer" } })).toEqual([1, 2]);
  });

  it("keeps plain text, a JSON object and an array the array branch refuses as strings in a string-or-array field", () => {
    const schema = { anyOf: [{ type: "string" }, { type: "array", items: { type: "integer" } }] };
    expect(field("a, b", schema)).toBe("a, b");
    expect(field('{"a": 1}', schema)).toBe('{"a": 1}');
    expect(field('["x"]', schema)).toBe('["x"]');
    expect(field("[1, 2", schema)).toBe("[1, 2");
  });

  it("keeps a JSON object string for a string-or-object anyOf: only arrays are read where text fits", () => {
    expect(field('{"a": 1}', { anyOf: [{ type: "string" }, { type: "object" }] })).toBe('{"a": 1}');
  });

  it("keeps a JSON array string in a field that takes only strings, or names it in an enum", () => {
    expect(field('["a"]', { type: "string" })).toBe('["a"]');
    expect(field("[]", { anyOf: [{ type: "string", enum: ["[]", "all"] }, { type: "array" }] })).toBe("[]");
  });

  it("reads a number when the union's string branch only allows other words", () => {
    expect(field("5", { anyOf: [{ type: "string", enum: ["auto"] }, { type: "integer" }] })).toBe(5);
  });

  it("reads a zod number with a description, emitted as a type array, and its null", () => {
    const schema = fromZod(z.number().nullable().describe("a score"));
    expect(schema.type).toEqual(["number", "null"]);
    expect(field("0.5", schema)).toBe(0.5);
    expect(field("null", schema)).toBeNull();
  });

  it("reads OpenAPI nullable: true as allowing null", () => {
    expect(field("null", { type: "integer", nullable: true })).toBeNull();
    expect(field("3", { type: "integer", nullable: true })).toBe(3);
  });

  it("repairs the one branch of a discriminated union the object fits", () => {
    const schema = fromZod(z.discriminatedUnion("k", [z.object({ k: z.literal("a"), n: z.number().int() }), z.object({ k: z.literal("b"), on: z.boolean() })]));
    expect(field({ k: "b", on: "true" }, schema)).toEqual({ k: "b", on: true });
  });

  it("keeps the value when two branches would repair it differently", () => {
    const schema = { anyOf: [object({ a: { type: "integer" } }), object({ b: { type: "integer" } })] };
    expect(field({ a: "1", b: "2" }, schema)).toEqual({ a: "1", b: "2" });
  });

  it("applies every allOf member", () => {
    const schema = { allOf: [object({ a: { type: "integer" } }), object({ b: { type: "boolean" } })] };
    expect(field({ a: "1", b: "true" }, schema)).toEqual({ a: 1, b: true });
  });
});

describe("enums and const", () => {
  it('reads "1" as 1 when 1 is a member of a numeric enum', () => {
    expect(field("1", { type: "integer", enum: [1, 2] })).toBe(1);
    expect(field("2", fromZod(z.union([z.literal(1), z.literal(2)])))).toBe(2);
    expect(field("3", fromZod(z.literal(3)))).toBe(3);
  });

  it("keeps a number string that is not an enum member", () => {
    expect(field("3", { type: "integer", enum: [1, 2] })).toBe("3");
  });

  it("leaves string enum values as sent, even when they would match after trimming", () => {
    expect(field(" a ", fromZod(z.enum(["a", "b"])))).toBe(" a ");
  });
});

describe("references", () => {
  it("follows $defs references in a recursive zod schema", () => {
    const Tree: z.ZodType = z.object({
      n: z.number().int(),
      get kids() {
        return z.array(Tree).optional();
      },
    });
    const { value, coercions } = coerceArguments({ n: "1", kids: [{ n: "2", kids: '[{"n": "3"}]' }] }, fromZod(Tree));
    expect(value).toEqual({ n: 1, kids: [{ n: 2, kids: [{ n: 3 }] }] });
    expect(coercions.map((c) => c.path)).toEqual(["n", "kids.0.n", "kids.0.kids", "kids.0.kids.0.n"]);
  });

  it("stops at circular references that never reach the value", () => {
    const schema: JsonSchema = { $defs: { A: { allOf: [{ $ref: "#/$defs/B" }] }, B: { $ref: "#/$defs/A" } }, properties: { x: { $ref: "#/$defs/A" } } };
    expect(coerceArguments({ x: "1" }, schema).value).toEqual({ x: "1" });
    expect(coerceArguments({ x: "1" }, { allOf: [{ $ref: "#" }], properties: { x: { type: "integer" } } }).value).toEqual({ x: 1 });
  });

  it("leaves values under external references untouched", () => {
    expect(field("1", { $ref: "https://example.com/schema.json" })).toBe("1");
  });
});

describe("purity and safety", () => {
  it("returns the same object and no coercions when nothing needs repair", () => {
    const args = { limit: 5, tags: ["a"] };
    const result = coerceArguments(args, fromZod(z.object({ limit: z.number().int(), tags: z.array(z.string()) })));
    expect(result.value).toBe(args);
    expect(result.coercions).toEqual([]);
  });

  it("never mutates the arguments and copies only the changed path", () => {
    const args = { a: { n: "1" }, b: { n: 2 } };
    const snapshot = structuredClone(args);
    const schema = object({ a: object({ n: { type: "integer" } }), b: object({ n: { type: "integer" } }) });
    const { value } = coerceArguments(Object.freeze(args), schema);
    expect(args).toEqual(snapshot);
    expect(value).toEqual({ a: { n: 1 }, b: { n: 2 } });
    expect((value as typeof args).b).toBe(args.b);
  });

  it("returns the arguments untouched when the schema cannot be read", () => {
    const args = { x: "1" };
    expect(coerceArguments(args, { properties: { x: { $ref: "#/%E0%A4%A" } } })).toEqual({ value: args, coercions: [] });
    expect(coerceArguments(args, { properties: 5, items: "x", anyOf: "no" }).value).toBe(args);
  });

  it("passes through arguments that are not objects", () => {
    expect(coerceArguments(undefined, object({})).value).toBeUndefined();
    expect(coerceArguments(7, object({})).value).toBe(7);
  });
});

// ---------------------------------------------------------------- properties

/** Values valid for a JSON Schema (the subset the schemas below use). */
function validFor(node: unknown, root: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(node, root);
  if (schema === undefined) return fc.jsonValue({ maxDepth: 1 });
  const { anyOf, oneOf, ...rest } = schema;
  const members = [anyOf, oneOf].find(Array.isArray);
  if (members !== undefined) return fc.oneof(...members.map((m: unknown) => validFor({ ...rest, ...deref(m, root) }, root, depth)));
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((t: unknown) => validFor({ ...schema, type: t }, root, depth)));
  if (schema.nullable === true) return fc.oneof(fc.constant(null), validFor({ ...schema, nullable: false }, root, depth));
  const deeper = depth >= 3;
  switch (schema.type) {
    case "integer":
      return fc.maxSafeInteger();
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "string":
      return fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("5", "007", "true", "null", "[1]", '{"a":1}'));
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      if (Array.isArray(schema.prefixItems)) return fc.tuple(...schema.prefixItems.map((s: unknown) => validFor(s, root, depth + 1)));
      return fc.array(validFor(schema.items, root, depth + 1), { maxLength: deeper ? 0 : 3 });
    case "object":
      return validObject(schema, root, depth);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function validObject(schema: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (Object.keys(properties).length === 0 && typeof schema.additionalProperties === "object") {
    return fc.dictionary(fc.string({ maxLength: 3 }), validFor(schema.additionalProperties, root, depth + 1), { maxKeys: 3 });
  }
  const keys = depth >= 3 ? required : Object.keys(properties);
  const model = Object.fromEntries(keys.map((k) => [k, validFor(properties[k], root, depth + 1)]));
  return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
}

function deref(node: unknown, root: JsonSchema): JsonSchema | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const schema = node as JsonSchema;
  if (typeof schema.$ref !== "string") return schema;
  if (schema.$ref === "#") return root;
  const defs = root.$defs as Record<string, JsonSchema>;
  return defs[schema.$ref.replace("#/$defs/", "")];
}

const Tree: z.ZodType = z.object({
  n: z.number().int(),
  get kids() {
    return z.array(Tree).optional();
  },
});
const zodSchemas: Record<string, z.ZodType> = {
  search: z.object({
    query: z.string(),
    limit: z.number().int().optional(),
    exact: z.boolean().optional(),
    ids: z.array(z.number().int()).optional(),
    tags: z.array(z.string()).nullable().optional(),
    page: z.number().int().nullable().optional(),
    mode: z.union([z.string(), z.number().int()]).optional(),
    score: z.number().nullable().describe("score"),
  }),
  nested: z.object({
    filter: z.object({ min: z.number().int(), on: z.boolean() }),
    rows: z.array(z.object({ id: z.number().int(), label: z.string().nullable() })),
    counts: z.record(z.string(), z.number().int()).optional(),
  }),
  unions: z.object({
    flag: z.union([z.boolean(), z.array(z.string())]),
    level: z.union([z.literal(1), z.literal(2)]),
    kind: z.enum(["a", "b"]),
    pair: z.tuple([z.number().int(), z.boolean()]).optional(),
    pick: z.discriminatedUnion("k", [z.object({ k: z.literal("a"), n: z.number().int() }), z.object({ k: z.literal("b"), on: z.boolean() })]).optional(),
  }),
  tree: Tree,
};
const cases = Object.entries(zodSchemas).map(([name, zod]) => ({ name, zod, json: fromZod(zod) }));

/** Small JSON Schemas built from the keywords coercion reads. */
const { node: jsonSchemaArb } = fc.letrec<{ node: JsonSchema; scalar: JsonSchema; array: JsonSchema; obj: JsonSchema; union: JsonSchema }>((tie) => ({
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("scalar"), tie("array"), tie("obj"), tie("union")),
  scalar: fc.constantFrom<JsonSchema>(
    { type: "integer" },
    { type: "number" },
    { type: "boolean" },
    { type: "string" },
    { type: "null" },
    { type: "integer", enum: [1, 2, 3] },
    { type: "string", enum: ["a", "b"] },
    { const: 3 },
    { type: ["integer", "null"] },
    { type: ["array", "null"], items: { type: "integer" } },
    { type: "integer", nullable: true },
    { type: ["string", "null"] },
    { type: ["string", "array"], items: { type: "integer" } },
    {},
  ),
  array: fc.oneof(
    fc.record({ type: fc.constant("array"), items: tie("node") }),
    fc.record({ type: fc.constant("array"), prefixItems: fc.array(tie("node"), { minLength: 1, maxLength: 2 }) }),
  ),
  obj: fc
    .record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 3 }),
        required: fc.subarray(["a", "b", "c"]),
        additionalProperties: tie("node"),
      },
      { requiredKeys: ["type", "properties", "required"] },
    )
    // zod's fromJSONSchema ignores a required key with no property schema; keep them paired.
    .map(({ required, ...rest }) => ({ ...rest, required: required.filter((k) => k in rest.properties) })),
  union: fc.oneof(
    fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("node"), { minLength: 1, maxLength: 2 }) }),
  ),
}));

/** JSON-ish arguments whose leaves are often the strings models send instead of values. */
const { value: stringyArgs } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("5", "-3", "3.0", "1e5", "007", "true", "FALSE", "null", '[1,"2"]', '{"a":"1"}', "x", "[oops", "", " 42 ", "1e400"),
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "query", "limit", "n", "kids"), tie("value"), { maxKeys: 3 }),
  ),
}));

const anyArgs = fc.oneof(fc.anything({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), stringyArgs);
const RUNS = { numRuns: 400 };

describe("properties", () => {
  it("never throws, whatever the arguments and schema", () => {
    const schemas = fc.oneof(fc.constantFrom(...cases.map((c) => c.json)), jsonSchemaArb, fc.object({ maxDepth: 2 }));
    fc.assert(
      fc.property(anyArgs, schemas, (args, schema) => {
        const { value, coercions } = coerceArguments(args, schema);
        expect(Array.isArray(coercions)).toBe(true);
        if (value === args) expect(coercions).toEqual([]);
      }),
      RUNS,
    );
  });

  it.each(cases)("is idempotent for the $name schema", ({ json }) => {
    const stringified = fc.tuple(validFor(json, json), fc.nat()).map(([v, seed]) => stringifySomeLeaves(seed)(v));
    const args = fc.oneof(anyArgs, stringified, validFor(json, json));
    fc.assert(
      fc.property(args, (input) => expectIdempotent(input, json)),
      RUNS,
    );
  });

  it("is idempotent for generated JSON Schemas", () => {
    const pair = jsonSchemaArb.chain((schema) => fc.tuple(fc.constant(schema), fc.oneof(stringyArgs, validFor(schema, schema))));
    fc.assert(
      fc.property(pair, ([schema, input]) => expectIdempotent(input, schema)),
      RUNS,
    );
  });

  it.each<[JsonSchema, unknown]>([
    [
      {
        allOf: [
          {
            oneOf: [
              { type: "string", enum: ["a"] },
              { type: "array", prefixItems: [{ const: 3 }] },
            ],
          },
          { type: "number" },
        ],
      },
      "5",
    ],
    [
      {
        allOf: [
          { anyOf: [{ type: "array", items: { type: "array", items: { type: "integer" } } }, { type: "object" }] },
          { type: "array", items: { type: "integer" } },
        ],
      },
      {},
    ],
    [
      {
        allOf: [
          {
            oneOf: [
              { type: "array", items: { type: "boolean" } },
              { type: "integer", nullable: true },
            ],
          },
          { type: "array", items: { anyOf: [{ type: "number" }, { type: "boolean" }] } },
        ],
      },
      "5",
    ],
  ])("is idempotent for allOf members that disagree (found by fuzzing): %j with %j", (schema, input) => {
    expectIdempotent(input, schema);
  });

  it.each(cases)("returns a value zod already accepts unchanged for the $name schema", ({ json, zod }) => {
    fc.assert(
      fc.property(fc.oneof(validFor(json, json), fc.anything({ maxDepth: 2 })), (input) => {
        fc.pre(zod.safeParse(input).success && !holdsTextMeantAsValue(input));
        const result = coerceArguments(input, json);
        expect(result.value).toBe(input);
        expect(result.coercions).toEqual([]);
      }),
      RUNS,
    );
  });

  it("returns generated values that a JSON Schema already accepts unchanged", () => {
    const pair = jsonSchemaArb.chain((schema) => fc.tuple(fc.constant(schema), validFor(schema, schema)));
    fc.assert(
      fc.property(pair, ([schema, input]) => {
        fc.pre(z.fromJSONSchema(schema).safeParse(input).success && !holdsTextMeantAsValue(input));
        expect(coerceArguments(input, schema)).toEqual({ value: input, coercions: [] });
      }),
      RUNS,
    );
  });

  it("turns stringified integers, booleans, nulls and JSON containers back into the valid value", () => {
    const zod = z.object({
      n: z.number().int(),
      on: z.boolean(),
      ids: z.array(z.number().int()),
      maybe: z.number().int().nullable(),
      flags: z.array(z.boolean()).nullable().optional(),
      nested: z.object({ x: z.number(), rows: z.array(z.object({ id: z.number().int() })) }),
      level: z.union([z.literal(1), z.literal(2)]),
    });
    const json = fromZod(zod);
    const valid = validFor(json, json).filter((v) => !hasUnreadableNumber(v));
    fc.assert(
      fc.property(valid, fc.nat(), (input, seed) => {
        expect(zod.safeParse(input).success).toBe(true);
        expect(coerceArguments(stringifySomeLeaves(seed)(input), json).value).toEqual(input);
      }),
      RUNS,
    );
  });
});

function expectIdempotent(input: unknown, schema: JsonSchema): void {
  const once = coerceArguments(input, schema);
  const twice = coerceArguments(once.value, schema);
  expect(twice.value).toBe(once.value);
  expect(twice.coercions).toEqual([]);
}

/**
 * Replaces some scalars (chosen by the bits of `seed`) with their text, and some containers
 * with their JSON text, as a model does. Integral numbers beyond 2^53 stay numbers: their
 * text is deliberately not read back.
 */
function stringifySomeLeaves(seed: number): (value: unknown) => unknown {
  let bits = seed;
  const flip = () => {
    const bit = (bits & 1) === 1;
    bits = (bits >>> 1) | (bit ? 1 << 30 : 0);
    return bit;
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      const items = value.map(walk);
      return flip() ? JSON.stringify(items) : items;
    }
    if (typeof value === "object" && value !== null) {
      const entries = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
      return flip() ? JSON.stringify(entries) : entries;
    }
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) return value;
    if (typeof value === "number" || typeof value === "boolean" || value === null) return flip() ? String(value) : value;
    return value;
  };
  return walk;
}

/**
 * Whether a string inside is "null" or a JSON array: where the schema also allows null or an
 * array, coercion deliberately reads those although a string fits (the examples above pin
 * where it must not), so the "valid input is left alone" properties skip them.
 */
function holdsTextMeantAsValue(value: unknown): boolean {
  if (typeof value === "string") return value === "null" || (value.trimStart().startsWith("[") && isJsonArrayText(value));
  if (typeof value === "object" && value !== null) return Object.values(value).some(holdsTextMeantAsValue);
  return false;
}

function isJsonArrayText(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

/** -0 reads back as 0, and integral numbers beyond 2^53 are deliberately not read back. */
function hasUnreadableNumber(value: unknown): boolean {
  if (typeof value === "number") return Object.is(value, -0) || (Number.isInteger(value) && !Number.isSafeInteger(value));
  if (typeof value === "object" && value !== null) return Object.values(value).some(hasUnreadableNumber);
  return false;
}
