import { describe, expect, it } from "vitest";
import { z } from "zod";
import { coerce } from "../../../src/pipeline/stages/coerce.ts";
import type { CallState } from "../../../src/pipeline/types.ts";
import { parametersDeferred } from "../../../src/registry/deferred-entry.ts";
import { Registry } from "../../../src/registry/registry.ts";
import type { ToolEntry } from "../../../src/registry/types.ts";

/** A tool registered as build-time tools are: its JSON Schema derived at first use. */
function deferredEntry(): ToolEntry {
  const registry = new Registry();
  registry.deferSchemas(true);
  registry.register({ name: "plain", toolset: "t", schema: z.object({ text: z.string(), times: z.number().int().default(1) }), handler: () => "" });
  const entry = registry.get("plain");
  if (entry === undefined) throw new Error("registration failed");
  return entry;
}

/** A call as the stages before coerce leave it: looked up and admitted, its arguments parsed. */
function callOf(entry: ToolEntry, args: Record<string, unknown>): CallState {
  return {
    input: { id: "c1", name: entry.name, arguments: args },
    run: { dependencyResults: undefined, batch: undefined, approved: undefined },
    startedAt: Date.now(),
    sentArgs: args,
    parsed: true,
    args,
    entry,
    policy: undefined,
    coercions: [],
    attempts: 0,
    refused: undefined,
    credential: undefined,
  };
}

describe("the coerce stage", () => {
  it("passes plain arguments of the right types on as sent without deriving the JSON Schema", () => {
    const entry = deferredEntry();
    const call = callOf(entry, { text: "hi", times: 2 });
    coerce(call);
    expect(call.args).toEqual({ text: "hi", times: 2 });
    expect(call.coercions).toEqual([]);
    expect(parametersDeferred(entry)).toBe(true);
  });

  it("still repairs what needs it, deriving the JSON Schema to do so", () => {
    const entry = deferredEntry();
    const call = callOf(entry, { text: "hi", times: "3" });
    coerce(call);
    expect(call.args).toEqual({ text: "hi", times: 3 });
    expect(call.coercions).toEqual([{ path: "times", from: "string", to: "integer" }]);
    expect(parametersDeferred(entry)).toBe(false);
  });
});
