import { describe, expect, it } from "vitest";
import { z } from "zod";
import { planBatch } from "../../src/batch/plan-batch.ts";
import { Registry } from "../../src/registry/registry.ts";
import type { ToolSpec } from "../../src/registry/types.ts";

function lookupOf(specs: Partial<ToolSpec>[]) {
  const registry = new Registry();
  for (const spec of specs) registry.register({ toolset: "t", schema: z.object({}), handler: () => "", name: "x", ...spec });
  return (name: string) => registry.get(name);
}

describe("planBatch", () => {
  const lookup = lookupOf([
    { name: "fetch" },
    { name: "summarise", dependsOn: ["fetch"] },
    { name: "write", writes: ["ws"] },
    { name: "read", reads: ["ws"] },
    { name: "other", reads: ["elsewhere"] },
    { name: "a", dependsOn: ["b"] },
    { name: "b", writes: ["r"] },
    { name: "c", writes: ["r"], dependsOn: ["a"] },
  ]);

  it("makes a dependent wait for every call of its dependency, in either order", () => {
    const plan = planBatch(["summarise", "fetch", "fetch"], lookup);
    expect(plan.dependsOn).toEqual([[1, 2], [], []]);
    expect(plan.waitsFor[0]).toEqual([1, 2]);
    expect(plan.rank[0]).toBeGreaterThan(plan.rank[1] ?? 0);
  });

  it("orders conflicting resource access in the emitted order and leaves reads and unrelated calls free", () => {
    const plan = planBatch(["read", "write", "read", "other", "read"], lookup);
    expect(plan.waitsFor).toEqual([[], [0], [1], [], [1]]);
    expect(plan.dependsOn).toEqual([[], [], [], [], []]);
  });

  it("never builds a cycle when dependencies and resources point opposite ways", () => {
    // c writes r after b in the emitted order, but c depends on a, which depends on b.
    const plan = planBatch(["c", "a", "b"], lookup);
    expect(plan.waitsFor).toEqual([[1, 2], [2], []]);
    const order = [0, 1, 2].sort((x, y) => (plan.rank[x] ?? 0) - (plan.rank[y] ?? 0));
    expect(order).toEqual([2, 1, 0]);
  });

  it("falls back to the emitted order for a dependency cycle among runtime-registered tools", () => {
    const cyclic = lookupOf([
      { name: "p", dependsOn: ["q"] },
      { name: "q", dependsOn: ["p"] },
    ]);
    const plan = planBatch(["p", "q"], cyclic);
    expect(plan.rank).toEqual([0, 1]);
    expect(plan.waitsFor[0]).toEqual([]);
  });

  it("orders calls by resources named from their arguments: same file waits, another file and reads stay free, a prefix* name covers them", () => {
    const files = lookupOf([
      { name: "put", writes: (args) => [`file:${String(args.path)}`] },
      { name: "get", reads: (args) => [`file:${String(args.path)}`] },
      { name: "ls", reads: ["file:*"] },
    ]);
    const plan = planBatch(["put", "get", "get", "put", "ls", "get"], files, [{ path: "a" }, { path: "a" }, { path: "b" }, { path: "c" }, {}, { path: "c" }]);
    expect(plan.waitsFor).toEqual([[], [0], [], [], [0, 3], [3]]);
  });

  it("makes a call whose resource names cannot be derived wait as if it touched everything", () => {
    const files = lookupOf([
      {
        name: "put",
        writes: () => {
          throw new Error("no path");
        },
      },
      { name: "other", reads: ["elsewhere"] },
    ]);
    expect(planBatch(["other", "put"], files, [{}, {}]).waitsFor).toEqual([[], [0]]);
  });

  it("ignores unknown tools", () => {
    expect(planBatch(["nope", "summarise"], lookup).waitsFor).toEqual([[], []]);
  });
});
