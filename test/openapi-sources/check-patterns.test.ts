import { describe, expect, it } from "vitest";
import { patternIssues } from "../../src/openapi-sources/check-patterns.ts";

describe("pattern checks over a schema someone else wrote", () => {
  it("ends on a schema that refers back to itself without descending into the value", async () => {
    const schema = { type: "object", $defs: { A: { allOf: [{ $ref: "#/$defs/A" }], pattern: "^a+$" } }, properties: { x: { $ref: "#/$defs/A" } } };
    expect(await patternIssues(schema, { x: "aaa" })).toEqual([]);
    expect((await patternIssues(schema, { x: "b" })).map((issue) => issue.path)).toContain("x");
  });

  it("refuses rather than explores nested unions that would multiply the walk", async () => {
    let node: Record<string, unknown> = { type: "string", pattern: "^z$" };
    for (let level = 0; level < 30; level++) node = { anyOf: [node, node, node] };
    const issues = await patternIssues({ type: "object", properties: { x: node } }, { x: "y" });
    expect(issues.some((issue) => issue.message.includes("too complex"))).toBe(true);
  });

  it("treats a malformed %-escape in a $ref as a pointer to nothing, not a URIError", async () => {
    const schema = { type: "object", properties: { x: { $ref: "#/$defs/%E0%A4%A", pattern: "^a$" } } };
    expect((await patternIssues(schema, { x: "b" })).map((issue) => issue.path)).toEqual(["x"]);
  });
});
