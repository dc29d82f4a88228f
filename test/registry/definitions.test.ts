import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { getDefinitions } from "../../src/registry/definitions.ts";
import { registry } from "../../src/registry/registry.ts";

const added: string[] = [];
function add(spec: Parameters<typeof registry.register>[0]) {
  expect(registry.register(spec).ok).toBe(true);
  added.push(spec.name);
}
afterEach(() => {
  for (const name of added.splice(0)) registry.deregister(name);
});

const schema = z.object({ q: z.string().describe("query") });

describe("getDefinitions", () => {
  it("returns definitions sorted by name and skips unknown names", async () => {
    add({ name: "defs_b", toolset: "defs", schema, handler: () => "" });
    add({ name: "defs_a", toolset: "defs", schema, handler: () => "" });
    const definitions = await getDefinitions(["defs_b", "nope", "defs_a"], env);
    expect(definitions.map((d) => d.name)).toEqual(["defs_a", "defs_b"]);
    expect(definitions[0]?.parameters).toMatchObject({ type: "object", required: ["q"] });
  });

  it("skips tools whose check fails or whose required vars are missing", async () => {
    add({ name: "defs_down", toolset: "defs", schema, handler: () => "", check: () => false });
    add({ name: "defs_novar", toolset: "defs", schema, handler: () => "", requiresEnv: ["DEFS_UNSET_VAR"] });
    add({ name: "defs_up", toolset: "defs", schema, handler: () => "" });
    expect((await getDefinitions(["defs_down", "defs_novar", "defs_up"], env)).map((d) => d.name)).toEqual(["defs_up"]);
  });

  it("shows the schema's description for a tool declared with an empty or blank description", async () => {
    const described = schema.describe("Searches the notes.");
    add({ name: "defs_empty", toolset: "defs", schema: described, handler: () => "", description: "" });
    add({ name: "defs_blank", toolset: "defs", schema: described, handler: () => "", description: "  \n" });
    const definitions = await getDefinitions(["defs_empty", "defs_blank"], env);
    expect(definitions.map((d) => d.description)).toEqual(["Searches the notes.", "Searches the notes."]);
    // The root description becomes the tool's, so the parameters do not repeat it.
    expect(definitions[0]?.parameters).not.toHaveProperty("description");
  });

  it("keeps a declared description over the schema's, and an empty one when the schema has none", async () => {
    add({ name: "defs_own", toolset: "defs", schema: schema.describe("From the schema."), handler: () => "", description: "Own words." });
    add({ name: "defs_none", toolset: "defs", schema, handler: () => "", description: "" });
    const definitions = await getDefinitions(["defs_own", "defs_none"], env);
    expect(definitions.map((d) => [d.name, d.description])).toEqual([
      ["defs_none", ""],
      ["defs_own", "Own words."],
    ]);
  });

  it("merges dynamic overrides shallowly but keeps the registered name", async () => {
    add({ name: "defs_dyn", toolset: "defs", schema, handler: () => "", dynamicSchemaOverrides: () => ({ description: "fresh", name: "renamed" }) as never });
    const [definition] = await getDefinitions(["defs_dyn"], env);
    expect(definition).toMatchObject({ name: "defs_dyn", description: "fresh" });
  });

  it("ignores overrides that throw or are not objects", async () => {
    add({
      name: "defs_throw",
      toolset: "defs",
      schema,
      handler: () => "",
      description: "static",
      dynamicSchemaOverrides: () => {
        throw new Error("boom");
      },
    });
    add({ name: "defs_array", toolset: "defs", schema, handler: () => "", description: "static", dynamicSchemaOverrides: () => [] as never });
    const definitions = await getDefinitions(["defs_throw", "defs_array"], env);
    expect(definitions.map((d) => d.description)).toEqual(["static", "static"]);
  });

  it("calls dynamic overrides at each request", async () => {
    let n = 0;
    add({ name: "defs_count", toolset: "defs", schema, handler: () => "", dynamicSchemaOverrides: () => ({ description: `call ${++n}` }) });
    await getDefinitions(["defs_count"], env);
    const [second] = await getDefinitions(["defs_count"], env);
    expect(second?.description).toBe("call 2");
  });
});
