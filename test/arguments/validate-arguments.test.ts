import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateArguments } from "../../src/arguments/validate-arguments.ts";
import { Registry } from "../../src/registry/registry.ts";
import type { ToolEntry } from "../../src/registry/types.ts";

function entryOf(name: string, schema: z.ZodObject): ToolEntry {
  const registry = new Registry();
  registry.register({ name, toolset: "t", schema, handler: () => "" });
  const entry = registry.get(name);
  if (entry === undefined) throw new Error("registration failed");
  return entry;
}

describe("validateArguments", () => {
  it("validates with a sync schema: the output (defaults applied), or every bad field", async () => {
    const entry = entryOf("plain", z.object({ text: z.string(), times: z.number().int().default(1) }));
    expect(await validateArguments(entry, { text: "hi" })).toEqual({ ok: true, args: { text: "hi", times: 1 } });
    const refused = await validateArguments(entry, { text: 3, times: "x" });
    expect(refused.ok).toBe(false);
    if (refused.ok || refused.failure.kind !== "invalid_arguments") throw new Error("expected invalid_arguments");
    expect(refused.failure.issues.map((issue) => issue.path)).toEqual(["text", "times"]);
  });

  it("still runs an async refinement, on every call, though the sync parse cannot", async () => {
    let checks = 0;
    const schema = z.object({
      domain: z.string().refine(async (value) => {
        checks += 1;
        await Promise.resolve();
        return value.endsWith(".example");
      }, "must be an .example domain"),
    });
    const entry = entryOf("async_refined", schema);
    expect(await validateArguments(entry, { domain: "a.example" })).toEqual({ ok: true, args: { domain: "a.example" } });
    const refused = await validateArguments(entry, { domain: "a.test" });
    if (refused.ok || refused.failure.kind !== "invalid_arguments") throw new Error("expected invalid_arguments");
    expect(refused.failure.issues[0]?.message).toContain("must be an .example domain");
    expect(await validateArguments(entry, { domain: "b.example" })).toEqual({ ok: true, args: { domain: "b.example" } });
    // The first call met the refinement twice (the sync attempt, then the async parse); once the
    // schema is known to be async, once per call.
    expect(checks).toBe(4);
  });
});
