/**
 * Example arguments from a JSON Schema: the schema's own values first, the smallest valid value
 * next, and no example (or "…" in a hint) where none can be made that validates.
 */
import { describe, expect, it } from "vitest";
import { exampleArguments, exampleHint } from "../../src/arguments/example-arguments.ts";

describe("exampleArguments", () => {
  it("prefers the schema's own example, examples, default, const and enum, in that order", () => {
    const schema = {
      type: "object",
      required: ["a", "b", "c", "d", "e"],
      properties: {
        a: { type: "string", example: "given", default: "not this" },
        b: { type: "string", examples: ["first", "second"] },
        c: { type: "integer", default: 7 },
        d: { const: "fixed" },
        e: { type: "string", enum: ["red", "green"] },
      },
    };
    expect(exampleArguments(schema)).toEqual({ a: "given", b: "first", c: 7, d: "fixed", e: "red" });
  });

  it("fills required arguments within their bounds and optional ones only where the schema gives a value", () => {
    const schema = {
      type: "object",
      required: ["count", "name", "when", "tags"],
      properties: {
        count: { type: "integer", minimum: 3, maximum: 9 },
        name: { type: "string", minLength: 10, maxLength: 12 },
        when: { type: "string", format: "date-time" },
        tags: { type: "array", minItems: 2, items: { type: "string", maxLength: 3 } },
        page: { type: "integer", default: 1 },
        cursor: { type: "string" },
      },
    };
    expect(exampleArguments(schema)).toEqual({ count: 3, name: "examplexxx", when: "2026-01-01T00:00:00Z", tags: ["exa", "exa"], page: 1 });
  });

  it("merges allOf parts, follows $defs, and skips a null option", () => {
    const schema = {
      type: "object",
      required: ["pet", "note"],
      properties: {
        pet: { allOf: [{ $ref: "#/$defs/Named" }, { type: "object", required: ["age"], properties: { age: { type: "integer" } } }] },
        note: { anyOf: [{ type: "null" }, { type: "boolean" }] },
      },
      $defs: { Named: { type: "object", required: ["name"], properties: { name: { type: "string", example: "Rex" } } } },
    };
    expect(exampleArguments(schema)).toEqual({ pet: { name: "Rex", age: 1 }, note: true });
  });

  it("makes no example rather than a wrong one: a pattern with no example, bounds that exclude every value", () => {
    expect(exampleArguments({ type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^[0-9a-f]{40}$" } } })).toBeUndefined();
    expect(exampleArguments({ type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 5, maximum: 2 } } })).toBeUndefined();
    // With the spec's own example, a patterned string is fine.
    expect(exampleArguments({ type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^[a-z]+$", example: "abc" } } })).toEqual({
      id: "abc",
    });
  });

  it("ends on a schema that refers to itself", () => {
    const schema = {
      type: "object",
      required: ["node"],
      properties: { node: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", required: ["next"], properties: { next: { $ref: "#/$defs/Node" } } } },
    };
    expect(exampleArguments(schema)).toBeUndefined();
    expect(JSON.stringify(exampleHint(schema))).toContain("…");
  });
});

describe("exampleHint", () => {
  it("shows what cannot be made as a placeholder", () => {
    expect(exampleHint({ type: "object", required: ["id", "n"], properties: { id: { type: "string", pattern: "^x$" }, n: { type: "number" } } })).toEqual({
      id: "…",
      n: 1,
    });
  });
});
