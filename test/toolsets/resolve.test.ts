import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { builtInAliases, type CustomToolsetLookup, findToolset, resolveToolset } from "../../src/toolsets/resolve.ts";
import type { StaticToolset } from "../../src/toolsets/types.ts";

const lookupOf =
  (records: Record<string, StaticToolset>): CustomToolsetLookup =>
  (name) =>
    Promise.resolve(records[name]);
const set = (tools: string[], includes: string[] = []): StaticToolset => ({ description: "", tools, includes });

const extra = [
  { name: "rs_plugin_web", toolset: "web" },
  { name: "rs_only_a", toolset: "rs-registry-only" },
  { name: "rs_only_b", toolset: "rs-registry-only" },
];

beforeAll(() => {
  for (const { name, toolset } of extra) registry.register({ name, toolset, schema: z.object({}), handler: () => "" });
});
afterAll(() => {
  for (const { name } of extra) registry.deregister(name);
});

describe("resolveToolset", () => {
  it("merges a static toolset with tools registered under its name", async () => {
    expect((await findToolset("web"))?.tools).toEqual(["github_repo", "rs_plugin_web", "web_extract", "web_fetch", "web_search"]);
  });

  it("treats a toolset that only tools name as a toolset", async () => {
    expect(await findToolset("rs-registry-only")).toMatchObject({ kind: "registry", tools: ["rs_only_a", "rs_only_b"] });
    expect(await resolveToolset("rs-registry-only")).toEqual(["rs_only_a", "rs_only_b"]);
  });

  it("deduplicates diamonds and sorts the result", async () => {
    const lookup = lookupOf({
      top: set(["zeta"], ["left", "right"]),
      left: set(["alpha", "shared"], ["base"]),
      right: set(["shared"], ["base"]),
      base: set(["beta"]),
    });
    expect(await resolveToolset("top", lookup)).toEqual(["alpha", "beta", "shared", "zeta"]);
  });

  it("stops at a cycle instead of looping", async () => {
    const lookup = lookupOf({ a: set(["one"], ["b"]), b: set(["two"], ["a"]) });
    expect(await resolveToolset("a", lookup)).toEqual(["one", "two"]);
  });

  it("returns undefined for an unknown toolset and skips unknown includes", async () => {
    expect(await resolveToolset("nope")).toBeUndefined();
    expect(await resolveToolset("x", lookupOf({ x: set(["t"], ["missing"]) }))).toEqual(["t"]);
  });

  it("resolves all and * to every registered tool except test fixtures", async () => {
    const everyTool = registry.names().filter((name) => registry.get(name)?.fixture !== true);
    expect(everyTool).toContain("echo");
    expect(everyTool).not.toContain("test_simple_text");
    expect(await resolveToolset("all")).toEqual(everyTool);
    expect(await resolveToolset("*")).toEqual(everyTool);
    expect(await resolveToolset("conformance")).toContain("test_simple_text");
  });

  it("lets a built-in win over a custom record of the same name", async () => {
    expect((await findToolset("core", lookupOf({ core: set(["evil"]) })))?.tools).not.toContain("evil");
  });

  it("follows a tool registered into, then removed from, a built-in toolset it already resolved", async () => {
    const before = await resolveToolset("rs-registry-only");
    registry.register({ name: "rs_only_late", toolset: "rs-registry-only", schema: z.object({}), handler: () => "" });
    try {
      expect(await resolveToolset("rs-registry-only")).toEqual([...(before ?? []), "rs_only_late"].sort());
    } finally {
      registry.deregister("rs_only_late");
    }
    expect(await resolveToolset("rs-registry-only")).toEqual(before);
  });

  it("reads a custom toolset again on every resolution, so a changed record shows at once", async () => {
    const records: Record<string, StaticToolset> = { mine: set(["first"], ["core"]) };
    expect(await resolveToolset("mine", lookupOf(records))).toContain("first");
    records.mine = set(["second"], ["core"]);
    const again = await resolveToolset("mine", lookupOf(records));
    expect(again).toContain("second");
    expect(again).not.toContain("first");
  });

  it("hands each caller its own array, so changing one result cannot change the next", async () => {
    const first = await resolveToolset("core");
    first?.push("tampered");
    expect(await resolveToolset("core")).not.toContain("tampered");
  });
});

describe("builtInAliases", () => {
  it("gives a static toolset's declared aliases, which the MCP door presents at /mcp/{toolset}", () => {
    const aliases = { web_search: { name: "search", description: "Search the web." } };
    const table = { curated: { ...set([], ["web"]), aliases }, plain: set([]) };
    expect(builtInAliases("curated", table)).toEqual(aliases);
    expect(builtInAliases("plain", table)).toBeUndefined();
    expect(builtInAliases("toString", table)).toBeUndefined();
  });
});
