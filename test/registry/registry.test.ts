import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parametersDeferred } from "../../src/registry/deferred-entry.ts";
import { DEFAULT_MAX_RESULT_SIZE_CHARS, Registry } from "../../src/registry/registry.ts";
import { toolError, toolResult } from "../../src/registry/tool-result.ts";
import { MIN_RESULT_LIMIT_CHARS, preview } from "../../src/results/limit-result.ts";

const schema = z.object({ q: z.string() });
const handler = () => "ok";

describe("register", () => {
  it("inserts a new name and derives the JSON Schema once", () => {
    const registry = new Registry();
    expect(registry.register({ name: "search", toolset: "web", schema, handler })).toEqual({ ok: true, action: "inserted" });
    expect(registry.get("search")?.parameters).toMatchObject({ type: "object", properties: { q: { type: "string" } }, required: ["q"] });
    expect(registry.get("search")?.parameters).not.toHaveProperty("$schema");
  });

  it("replaces a tool of the same name in the same toolset", () => {
    const registry = new Registry();
    registry.register({ name: "search", toolset: "web", schema, handler, description: "first" });
    expect(registry.register({ name: "search", toolset: "web", schema, handler, description: "second" })).toEqual({ ok: true, action: "replaced" });
    expect(registry.get("search")?.description).toBe("second");
  });

  it("rejects a tool that would shadow one from another toolset and keeps the existing entry", () => {
    const registry = new Registry();
    registry.register({ name: "search", toolset: "web", schema, handler, description: "original" });
    const generation = registry.generation;
    const outcome = registry.register({ name: "search", toolset: "plugin", schema, handler, description: "intruder" });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.reason).toMatch(/would shadow .* toolset 'web'/);
    expect(registry.get("search")?.description).toBe("original");
    expect(registry.generation).toBe(generation);
  });

  it("lets one MCP toolset replace another's tool", () => {
    const registry = new Registry();
    registry.register({ name: "mcp__a__t", toolset: "mcp-a", schema, handler });
    expect(registry.register({ name: "mcp__a__t", toolset: "mcp-b", schema, handler }).ok).toBe(true);
    expect(registry.get("mcp__a__t")?.toolset).toBe("mcp-b");
  });

  it("replaces across toolsets when override is true", () => {
    const registry = new Registry();
    registry.register({ name: "search", toolset: "web", schema, handler });
    expect(registry.register({ name: "search", toolset: "better", schema, handler, override: true })).toEqual({ ok: true, action: "replaced" });
    expect(registry.get("search")?.toolset).toBe("better");
  });

  it.each(["", "has space", "dot.name", "é", "x".repeat(65)])("refuses the name %j with a message naming the rule", (name) => {
    const registry = new Registry();
    const outcome = registry.register({ name, toolset: "web", schema, handler });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.reason).toContain("^[a-zA-Z0-9_-]{1,64}$");
    expect(registry.names()).toEqual([]);
  });

  it("accepts a 64-character name of letters, digits, '_' and '-'", () => {
    const registry = new Registry();
    expect(registry.register({ name: `a-_9${"x".repeat(60)}`, toolset: "t", schema, handler }).ok).toBe(true);
  });

  it("refuses a schema that is not an object, because providers pass named fields", () => {
    const registry = new Registry();
    const outcome = registry.register({ name: "bad", toolset: "t", schema: z.string(), handler });
    expect(outcome.ok ? "" : outcome.reason).toMatch(/must be an object schema/);
  });

  it("refuses a schema JSON Schema cannot express", () => {
    const registry = new Registry();
    const outcome = registry.register({ name: "bad", toolset: "t", schema: z.object({ when: z.date() }), handler });
    expect(outcome.ok ? "" : outcome.reason).toMatch(/cannot be expressed as JSON Schema/);
  });

  it("with schemas deferred, derives the JSON Schema and the schema's description at first read, as an eager registration does", () => {
    const described = schema.describe("From the schema.");
    const eager = new Registry();
    eager.register({ name: "t", toolset: "s", schema: described, handler });
    const registry = new Registry();
    registry.deferSchemas(true);
    expect(registry.register({ name: "t", toolset: "s", schema: described, handler })).toEqual({ ok: true, action: "inserted" });
    expect({ ...registry.get("t") }).toEqual({ ...eager.get("t") });
    expect(registry.get("t")?.description).toBe("From the schema.");
  });

  it("with schemas deferred, a schema JSON Schema cannot express throws at first read, naming the tool", () => {
    const registry = new Registry();
    registry.deferSchemas(true);
    expect(registry.register({ name: "bad", toolset: "t", schema: z.object({ when: z.date() }), handler }).ok).toBe(true);
    expect(() => registry.get("bad")?.parameters).toThrow(/Tool 'bad': its schema cannot be expressed as JSON Schema/);
    registry.deferSchemas(false);
    const outcome = registry.register({ name: "bad2", toolset: "t", schema: z.object({ when: z.date() }), handler });
    expect(outcome.ok ? "" : outcome.reason).toMatch(/cannot be expressed as JSON Schema/);
  });

  it("with schemas deferred, builds a schema given as a function at its first use, once, and types the handler from it", async () => {
    let builds = 0;
    const registry = new Registry();
    registry.deferSchemas(true);
    const outcome = registry.register({
      name: "lazy",
      toolset: "s",
      schema: () => {
        builds += 1;
        return z.object({ n: z.number().default(2) }).describe("Built late.");
      },
      // `n` is typed by the function's schema: a string here would not compile.
      handler: ({ n }) => n * 2,
    });
    expect(outcome).toEqual({ ok: true, action: "inserted" });
    expect(builds).toBe(0);
    const entry = registry.get("lazy");
    expect(await entry?.schema.parseAsync({})).toEqual({ n: 2 });
    expect(entry?.description).toBe("Built late.");
    expect(entry?.parameters).toMatchObject({ type: "object", properties: { n: { type: "number", default: 2 } } });
    expect(builds).toBe(1);
  });

  it("says whether an entry's parameters are still to be derived from its zod schema", () => {
    const deferred = new Registry();
    deferred.deferSchemas(true);
    deferred.register({ name: "t", toolset: "s", schema: z.object({ n: z.number() }), handler });
    deferred.register({ name: "given", toolset: "s", schema: z.object({ n: z.number() }), parameters: { type: "object" }, description: "d", handler });
    const eager = new Registry();
    eager.register({ name: "t", toolset: "s", schema: z.object({ n: z.number() }), handler });
    const entry = deferred.get("t");
    expect(entry !== undefined && parametersDeferred(entry)).toBe(true);
    expect(entry?.parameters).toMatchObject({ type: "object" });
    expect(entry !== undefined && parametersDeferred(entry)).toBe(false);
    for (const settled of [deferred.get("given"), eager.get("t")]) expect(settled !== undefined && parametersDeferred(settled)).toBe(false);
  });

  it("gives a tool whose schema is a function the same entry as one whose schema is given built", () => {
    const described = schema.describe("From the schema.");
    const eager = new Registry();
    eager.register({ name: "t", toolset: "s", schema: described, handler });
    const deferred = new Registry();
    deferred.deferSchemas(true);
    deferred.register({ name: "t", toolset: "s", schema: () => described, handler });
    const checked = new Registry();
    checked.register({ name: "t", toolset: "s", schema: () => described, handler });
    expect({ ...deferred.get("t") }).toEqual({ ...eager.get("t") });
    expect({ ...checked.get("t") }).toEqual({ ...eager.get("t") });
  });

  it("leaves a function schema unbuilt when parameters and a description are given (a remote tool's), until a call needs it", () => {
    let builds = 0;
    const registry = new Registry();
    const parameters = { type: "object", properties: { q: { type: "string" } } };
    const lazy = () => {
      builds += 1;
      return schema;
    };
    registry.register({ name: "remote", toolset: "mcp-x", schema: lazy, handler, description: "Remote.", parameters });
    expect(registry.get("remote")?.parameters).toEqual(parameters);
    expect(builds).toBe(0);
    expect(registry.get("remote")?.schema.safeParse({ q: "x" }).success).toBe(true);
    expect(builds).toBe(1);
  });

  it("without deferral, refuses a function schema JSON Schema cannot express at registration, as a built one", () => {
    const registry = new Registry();
    const outcome = registry.register({ name: "bad", toolset: "t", schema: () => z.object({ when: z.date() }), handler });
    expect(outcome.ok ? "" : outcome.reason).toMatch(/Tool 'bad': its schema cannot be expressed as JSON Schema/);
  });

  it("falls back to the schema's description and applies defaults", () => {
    const registry = new Registry();
    registry.register({ name: "t", toolset: "s", schema: schema.describe("From the schema."), handler });
    const entry = registry.get("t");
    expect(entry?.description).toBe("From the schema.");
    expect(entry?.maxResultSizeChars).toBe(DEFAULT_MAX_RESULT_SIZE_CHARS);
    expect(entry?.requiresEnv).toEqual([]);
    expect(entry?.emoji).toBe("");
  });

  it("falls back to the root description of given parameters (a remote tool's) when the declared one is empty", () => {
    const registry = new Registry();
    const parameters = { type: "object", properties: {}, description: "From the server's inputSchema." };
    registry.register({ name: "remote", toolset: "mcp-x", schema, handler, description: "", parameters });
    expect(registry.get("remote")?.description).toBe("From the server's inputSchema.");
  });

  it("keeps the gateway fields a tool declares", () => {
    const registry = new Registry();
    registry.register({
      name: "t",
      toolset: "s",
      schema,
      handler,
      timeoutMs: 500,
      dependsOn: ["a"],
      writes: ["workspace"],
      risky: true,
      retry: { maxAttempts: 2 },
    });
    expect(registry.get("t")).toMatchObject({ timeoutMs: 500, dependsOn: ["a"], writes: ["workspace"], risky: true, retry: { maxAttempts: 2 } });
  });

  it("refuses a retry policy that would retry without waiting or never try, naming the field", () => {
    const registry = new Registry();
    expect(registry.register({ name: "f0", toolset: "s", schema, handler, retry: { backoffFactor: 0 } })).toEqual({
      ok: false,
      reason: "'f0' has retry.backoffFactor 0: it must be a finite number of at least 1.",
    });
    expect(registry.register({ name: "fn", toolset: "s", schema, handler, retry: { backoffFactor: Number.NaN } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("retry.backoffFactor NaN"),
    });
    expect(registry.register({ name: "b", toolset: "s", schema, handler, retry: { backoffBaseMs: -1 } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("retry.backoffBaseMs -1"),
    });
    expect(registry.register({ name: "m", toolset: "s", schema, handler, retry: { maxAttempts: 0 } })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("retry.maxAttempts 0"),
    });
    expect(registry.register({ name: "ok", toolset: "s", schema, handler, retry: { backoffFactor: 1, backoffBaseMs: 0, maxAttempts: 1 } })).toMatchObject({
      ok: true,
    });
  });

  it("refuses a result limit smaller than the truncation notice, which a cut result could not fit", () => {
    const registry = new Registry();
    const outcome = registry.register({ name: "tiny", toolset: "s", schema, handler, maxResultSizeChars: 50 });
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringContaining(`'tiny' has maxResultSizeChars 50`) });
    expect(outcome.ok ? "" : outcome.reason).toContain(`must be at least ${MIN_RESULT_LIMIT_CHARS}`);
    expect(registry.register({ name: "nan", toolset: "s", schema, handler, maxResultSizeChars: Number.NaN }).ok).toBe(false);
    expect(registry.register({ name: "least", toolset: "s", schema, handler, maxResultSizeChars: MIN_RESULT_LIMIT_CHARS }).ok).toBe(true);
    expect(registry.register({ name: "unbounded", toolset: "s", schema, handler, maxResultSizeChars: Number.POSITIVE_INFINITY }).ok).toBe(true);
  });

  it("fits a cut result in the smallest limit it accepts, whatever the result's size and with a handle", () => {
    for (const size of [MIN_RESULT_LIMIT_CHARS + 1, 10_000, 5_000_000]) {
      const text = preview("x".repeat(size), MIN_RESULT_LIMIT_CHARS, crypto.randomUUID());
      expect(text.length).toBeLessThanOrEqual(MIN_RESULT_LIMIT_CHARS);
      expect(text).toContain(`${size} characters in all`);
    }
  });
});

describe("deregister and readers", () => {
  it("treats deregistering an unknown name as a no-op", () => {
    const registry = new Registry();
    registry.register({ name: "t", toolset: "s", schema, handler });
    const generation = registry.generation;
    registry.deregister("nope");
    expect(registry.generation).toBe(generation);
    registry.deregister("t");
    expect(registry.has("t")).toBe(false);
    expect(registry.generation).toBe(generation + 1);
  });

  it("lists names and toolsets sorted", () => {
    const registry = new Registry();
    for (const [name, toolset] of [
      ["b", "y"],
      ["a", "z"],
      ["c", "y"],
    ] as const)
      registry.register({ name, toolset, schema, handler });
    expect(registry.names()).toEqual(["a", "b", "c"]);
    expect(registry.toolsets()).toEqual(["y", "z"]);
    expect(registry.namesInToolset("y")).toEqual(["b", "c"]);
  });
});

describe("toolError and toolResult", () => {
  it("return JSON strings in the original's shapes", () => {
    expect(JSON.parse(toolError("nope", { code: 3 }))).toEqual({ error: "nope", code: 3 });
    expect(JSON.parse(toolResult({ a: 1 }))).toEqual({ a: 1 });
    expect(JSON.parse(toolResult(undefined, { ok: true }))).toEqual({ ok: true });
  });

  it("bounds an error's text", () => {
    const error = JSON.parse(toolError("x".repeat(5000))) as { error: string };
    expect(error.error).toHaveLength(2048 + "… [truncated]".length);
  });
});
