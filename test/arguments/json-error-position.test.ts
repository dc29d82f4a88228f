import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonErrorPosition } from "../../src/arguments/json-error-position.ts";

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("jsonErrorPosition", () => {
  it.each([
    ['{"a": 1, "b": }', 14],
    ['{"a":1}{"a":1}', 7],
    ["{'a': 1}", 1],
    ['{"a": 1,}', 8],
    ['{"a": 01}', 7],
    ['{"a": "x', 8],
    ["", 0],
    ["[1, 2", 5],
  ])("places the error in %j at %i", (text, position) => {
    expect(jsonErrorPosition(text)).toBe(position);
  });

  it("agrees with JSON.parse on which texts are valid", () => {
    const texts = fc.oneof(
      fc.json(),
      fc.string(),
      fc.json().chain((json) => fc.nat(json.length).map((cut) => json.slice(0, cut))),
      fc
        .json()
        .chain((json) =>
          fc.tuple(fc.nat(json.length), fc.constantFrom(",", "}", "]", "'", "x", " ", "\\")).map(([at, ch]) => json.slice(0, at) + ch + json.slice(at)),
        ),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const position = jsonErrorPosition(text);
        expect(position === undefined).toBe(parses(text));
        if (position !== undefined) expect(position).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 2000 },
    );
  });
});
