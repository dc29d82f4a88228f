import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { coerceArguments } from "../../src/arguments/coerce-arguments.ts";
import { fitsAsSent } from "../../src/arguments/fits-as-sent.ts";
import { deriveParameters } from "../../src/registry/deferred-entry.ts";
import type { JsonSchema } from "../../src/registry/types.ts";

// The registry's own derivation, so the shortcut is held to the JSON Schema calls are coerced by.
function derive(schema: z.ZodType): JsonSchema {
  const derived = deriveParameters("t", schema);
  if (typeof derived === "string") throw new Error(derived);
  return derived;
}

const echo = z.object({
  text: z.string().max(10_000).describe("The text to send back."),
  times: z.number().int().min(1).max(10).default(1),
  uppercase: z.boolean().default(false),
});

/** Plain schemas fitsAsSent reads, and others it must leave to the JSON Schema walk. */
const SCHEMAS: z.ZodType[] = [
  echo,
  z.object({ a: z.string(), b: z.number().optional(), c: z.boolean().optional().default(true) }),
  z.object({ a: z.number(), b: z.email().optional() }),
  z.object({}),
  z.strictObject({ a: z.string() }),
  z.looseObject({ a: z.string() }),
  z.object({ a: z.string().nullable() }),
  z.object({ a: z.array(z.number()).optional() }),
  z.object({ a: z.union([z.string(), z.array(z.string())]).optional() }),
  z.object({ a: z.enum(["x", "y"]).optional(), b: z.literal("null").optional() }),
  z.object({ a: z.object({ b: z.number() }).optional() }),
];

const KEYS = ["a", "b", "c", "text", "times", "uppercase", "z"];
const value = fc.oneof(
  fc.constantFrom("null", "[1]", ' ["x"]', "5", "true", "x", "", "{}"),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.record({ b: fc.oneof(fc.integer(), fc.string()) }),
);
const args = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 });

describe("fitsAsSent", () => {
  it("holds only where coercion against the derived JSON Schema would leave the arguments as sent", () => {
    let held = 0;
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMAS), args, (schema, sent) => {
        if (!fitsAsSent(sent, schema)) return;
        held += 1;
        const coerced = coerceArguments(sent, derive(schema));
        expect(coerced.value).toBe(sent);
        expect(coerced.coercions).toEqual([]);
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: empty arguments alone fit z.object({}) and the all-optional schemas.
    expect(held).toBeGreaterThan(0);
  });

  it("answers for the plain object schemas a call most often meets", () => {
    expect(fitsAsSent({ text: "hi" }, echo)).toBe(true);
    expect(fitsAsSent({ text: "null", times: 3, uppercase: true }, echo)).toBe(true);
    expect(fitsAsSent({ text: "[1]" }, echo)).toBe(true);
    expect(fitsAsSent({}, z.object({}))).toBe(true);
  });

  it("leaves to the full walk what needs repair or what it does not read", () => {
    // Would be repaired: a number as text, a missing required field, a key the schema lacks.
    expect(fitsAsSent({ text: "hi", times: "3" }, echo)).toBe(false);
    expect(fitsAsSent({ times: 3 }, echo)).toBe(false);
    expect(fitsAsSent({ text: "hi", extra: 1 }, echo)).toBe(false);
    // A fraction: the full walk knows whether the field is a number or an integer.
    expect(fitsAsSent({ a: 1.5 }, z.object({ a: z.number() }))).toBe(false);
    // Fields that may hold null or an array, where text can be meant as that value.
    expect(fitsAsSent({ a: "null" }, z.object({ a: z.string().nullable() }))).toBe(false);
    expect(fitsAsSent({ a: "x" }, z.object({ a: z.union([z.string(), z.array(z.string())]) }))).toBe(false);
    // Not an object schema of scalars, or not an object at all.
    expect(fitsAsSent({ a: "x" }, z.looseObject({ a: z.string() }))).toBe(false);
    expect(
      fitsAsSent(
        { a: "x" },
        z.object({ a: z.string() }).transform((v) => v),
      ),
    ).toBe(false);
    expect(fitsAsSent("x", z.string())).toBe(false);
    expect(fitsAsSent([], z.object({}))).toBe(false);
  });
});
