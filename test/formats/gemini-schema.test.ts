import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toGeminiSchema } from "../../src/formats/gemini-schema.ts";

/** A zod schema as the registry derives it (registry.ts), then converted. */
const fromZod = (schema: z.ZodType) => toGeminiSchema(z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>);

describe("toGeminiSchema", () => {
  it("upper-cases types, keeps required fields and the properties' order, and drops additionalProperties and $schema", () => {
    const out = fromZod(z.object({ b: z.string().describe("B."), a: z.number().int().min(1).max(9) }).strict());
    expect(out).toEqual({
      type: "OBJECT",
      properties: { b: { type: "STRING", description: "B." }, a: { type: "INTEGER", minimum: 1, maximum: 9 } },
      propertyOrdering: ["b", "a"],
      required: ["b", "a"],
    });
  });

  it("turns a null alternative into nullable and other alternatives into anyOf", () => {
    expect(fromZod(z.string().nullable())).toEqual({ type: "STRING", nullable: true });
    expect(toGeminiSchema({ type: ["integer", "null"] })).toEqual({ type: "INTEGER", nullable: true });
    expect(fromZod(z.union([z.string(), z.number()]))).toEqual({ anyOf: [{ type: "STRING" }, { type: "NUMBER" }] });
    expect(toGeminiSchema({ type: ["string", "boolean"], description: "Either." })).toEqual({
      anyOf: [{ type: "STRING" }, { type: "BOOLEAN" }],
      description: "Either.",
    });
  });

  it("makes string literals and enums a string enum, and says other constants in the description", () => {
    expect(fromZod(z.literal("on"))).toEqual({ type: "STRING", format: "enum", enum: ["on"] });
    expect(fromZod(z.union([z.literal("a"), z.literal("b")]))).toEqual({ type: "STRING", format: "enum", enum: ["a", "b"] });
    expect(toGeminiSchema({ enum: [1, 2, 3] })).toEqual({ type: "INTEGER", description: "One of: 1, 2, 3." });
    expect(toGeminiSchema({ const: true, description: "Flag." })).toEqual({ type: "BOOLEAN", description: "Flag. Must be true." });
  });

  it("describes a map whose keys are free, and writes counts as int64 strings", () => {
    expect(fromZod(z.record(z.string(), z.number()))).toEqual({
      type: "OBJECT",
      description: "An object whose keys are free and whose values are of type number.",
    });
    expect(fromZod(z.array(z.string().min(2)).min(1).max(3))).toEqual({
      type: "ARRAY",
      items: { type: "STRING", minLength: "2" },
      minItems: "1",
      maxItems: "3",
    });
  });

  it("keeps the formats Gemini knows and names the others", () => {
    expect(toGeminiSchema({ type: "string", format: "date-time" })).toEqual({ type: "STRING", format: "date-time" });
    expect(toGeminiSchema({ type: "string", format: "uri" })).toEqual({ type: "STRING", description: "Format: uri." });
    expect(toGeminiSchema({ type: "number", exclusiveMinimum: 0 })).toEqual({ type: "NUMBER", minimum: 0, description: "Greater than 0." });
  });

  it("inlines $ref and merges allOf, and stops a recursive reference", () => {
    const node = { type: "object", properties: { child: { $ref: "#/$defs/Node" } } };
    const out = toGeminiSchema({ $defs: { Node: node }, $ref: "#/$defs/Node" });
    let depth = 0;
    let cursor: unknown = out;
    while (typeof cursor === "object" && cursor !== null && "properties" in cursor) {
      cursor = (cursor as { properties: { child: unknown } }).properties.child;
      depth += 1;
    }
    expect(depth).toBe(8);
    expect(cursor).toEqual({ type: "OBJECT", description: "A Node object (its schema nests too deep to inline)." });
    expect(
      toGeminiSchema({ allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "string" } } }] }),
    ).toEqual({
      type: "OBJECT",
      properties: { a: { type: "STRING" }, b: { type: "STRING" } },
      propertyOrdering: ["a", "b"],
      required: ["a"],
    });
  });
});
