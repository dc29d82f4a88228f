/** The web and http tools' example arguments (their `example`, also quoted in their descriptions) are valid calls. */
import { describe, expect, it } from "vitest";
import { registry } from "../../src/registry/registry.ts";

describe("web and http tool examples", () => {
  for (const name of ["web_extract", "web_fetch", "web_search", "http_request"]) {
    it(`${name}'s example validates against its schema and is quoted in its description`, () => {
      const entry = registry.get(name);
      expect(entry?.example).toBeDefined();
      expect(entry?.schema.safeParse(entry.example).success).toBe(true);
      expect(entry?.description).toContain(JSON.stringify(entry?.example));
    });
  }

  it("describes every parameter of every web and http tool", () => {
    for (const name of ["web_extract", "web_search", "http_request"]) {
      const properties = (registry.get(name)?.parameters.properties ?? {}) as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(properties)) expect(schema.description, `${name}.${field}`).toMatch(/\w{3,}/);
    }
  });
});
