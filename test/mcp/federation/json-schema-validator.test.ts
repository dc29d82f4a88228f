import { describe, expect, it } from "vitest";
import { validatorFor } from "../../../src/mcp/federation/json-schema-validator.ts";

describe("a remote tool's validator", () => {
  it("leaves a catastrophic pattern to the remote server instead of running it over the caller's arguments", () => {
    // `^(a+)+$` against 40 a's and a b backtracks 2^40 steps in a backtracking engine.
    const { schema } = validatorFor({ type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } }, required: ["name"] });
    expect(schema.safeParse({ name: `${"a".repeat(40)}b` }).success).toBe(true);
  });

  it("still checks every other keyword of the field", () => {
    const { schema } = validatorFor({ type: "object", properties: { name: { type: "string", pattern: "^x$", maxLength: 3 } }, required: ["name"] });
    expect(schema.safeParse({ name: 5 }).success).toBe(false);
    expect(schema.safeParse({ name: "toolong" }).success).toBe(false);
    expect(schema.safeParse({}).success).toBe(false);
  });

  it("admits the keys patternProperties described, rather than refusing them as additional", () => {
    const { schema } = validatorFor({ type: "object", patternProperties: { "^(x+)+$": { type: "number" } }, additionalProperties: false });
    expect(schema.safeParse({ xxxx: 1 }).success).toBe(true);
  });
});
