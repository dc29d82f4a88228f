/** Loading a spec's text: JSON or YAML, OpenAPI 3.0, 3.1 or Swagger 2.0, and every bad text refused with its reason. */
import { describe, expect, it } from "vitest";
import { loadSpec, MAX_SPEC_CHARS } from "../../src/openapi-sources/load-spec.ts";
import petstore20 from "../fixtures/openapi/petstore-2.0.json?raw";
import petstore30 from "../fixtures/openapi/petstore-3.0.yaml?raw";
import petstore31 from "../fixtures/openapi/petstore-3.1.yaml?raw";

async function refusal(text: string): Promise<string> {
  const loaded = await loadSpec(text);
  if (loaded.ok) throw new Error("expected a refusal");
  return loaded.reason;
}

describe("loadSpec", () => {
  it("loads the Petstore in YAML (3.0, 3.1) and in JSON (Swagger 2.0)", async () => {
    for (const [text, version] of [
      [petstore30, "3.0.3"],
      [petstore31, "3.1.0"],
      [petstore20, "2.0"],
    ] as const) {
      const loaded = await loadSpec(text);
      expect(loaded.ok).toBe(true);
      if (loaded.ok) expect(loaded.doc.openapi ?? loaded.doc.swagger).toBe(version);
    }
  });

  it("refuses text that is neither JSON nor YAML, naming both", async () => {
    expect(await refusal('{"openapi": "3.1.0", ')).toMatch(/^the spec looks like JSON but does not parse: /);
    expect(await refusal("openapi: [3.1.0\ninfo: {")).toMatch(/^the spec is neither JSON nor YAML: /);
  });

  it("reads YAML in flow style, which starts like JSON", async () => {
    const loaded = await loadSpec("{openapi: 3.1.0, info: {title: flow, version: '1'}, paths: {}}");
    expect(loaded.ok && loaded.doc.openapi).toBe("3.1.0");
  });

  it("refuses a document that is not an object", async () => {
    expect(await refusal("- openapi: 3.1.0")).toBe("the spec must be a JSON or YAML object (an OpenAPI document); it is a list");
    expect(await refusal("just some words")).toBe("the spec must be a JSON or YAML object (an OpenAPI document); it is a string");
    expect(await refusal("")).toBe("the spec must be a JSON or YAML object (an OpenAPI document); it is empty");
  });

  it("refuses a document that is not OpenAPI 3.0, 3.1 or Swagger 2.0", async () => {
    for (const text of ['{"openapi": "3.2.0", "paths": {}}', '{"swagger": "1.2"}', "asyncapi: 2.6.0\ninfo: {title: t}", '{"openapi": 3.1}']) {
      expect(await refusal(text)).toMatch(/^the document is not OpenAPI 3.0, 3.1 or Swagger 2.0/);
    }
  });

  it("refuses a 20 MB spec before parsing it, saying how big it is and what is accepted", async () => {
    const text = `{"openapi": "3.1.0", "info": {"title": "big", "description": "${"x".repeat(20 * 1024 * 1024)}"}, "paths": {}}`;
    expect(text.length).toBeGreaterThan(MAX_SPEC_CHARS);
    expect(await refusal(text)).toBe("the spec is 20.0 MB; at most 16.0 MB is accepted (trim it to the operations you need)");
  });

  it("refuses YAML whose anchors expand exponentially (billion laughs) instead of expanding them", async () => {
    const levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let level = 1; level < 10; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(", ")}]`);
    }
    const text = `openapi: 3.1.0\ninfo: {title: laughs, version: "1"}\npaths: {}\nx-laughs:\n${levels.map((line) => `  ${line}`).join("\n")}\n`;
    expect(await refusal(text)).toMatch(/^the spec is YAML whose anchors and aliases expand too far \(.*\); share schemas with \$ref instead$/);
  });

  it("accepts a few anchors, as hand-written YAML specs use them", async () => {
    const text =
      "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [&page {name: page, in: query, schema: {type: integer}}]\n      responses: {}\n  /b:\n    get:\n      parameters: [*page]\n      responses: {}\n";
    const loaded = await loadSpec(text);
    expect(loaded.ok).toBe(true);
  });
});
