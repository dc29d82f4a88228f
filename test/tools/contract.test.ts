/**
 * The contract every registered tool keeps, run over every tool the generator discovered (test
 * fixtures aside), so a tool is checked the day its file is added: it describes itself and each
 * parameter, its example validates, its definitions pass the providers' SDK types and MCP's own
 * validator, its example answers through POST /v1/tool-calls, a wrong type is named, a call past
 * its deadline ends with TOOL_TIMEOUT and the handler's signal fired, and ten concurrent calls
 * each get their own result.
 *
 * A tool that needs a secret gets a test value for each `requiresEnv` variable; one that calls out
 * reaches the outbound stand-in (test/support/upstream.ts), which must then play its upstream.
 * What a check cannot cover for a tool is listed in SKIPPED with the reason.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../src/config/config.ts";
import { toEnvelope } from "../../src/errors/envelope.ts";
import { createExecutor } from "../../src/execution/execute.ts";
import { BreakerRegistry } from "../../src/execution/circuit-breaker.ts";
import { withOverrides } from "../../src/registry/definitions.ts";
import { toAnthropicTool, toMcpTool, toOpenAITool } from "../../src/formats/tool-definitions.ts";
import { createApp } from "../../src/http/app.ts";
import { compileGlob } from "../../src/policy/glob.ts";
import { registry } from "../../src/registry/registry.ts";
import type { StoredResult } from "../../src/results/limit-result.ts";
import { storedResultKey } from "../../src/storage/keys.ts";
import { DISCOVERED_TOOLS } from "../../src/registry/tools.gen.ts";
import type { JsonSchema, ToolContext, ToolEntry } from "../../src/registry/types.ts";
import { testParts } from "../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";

type Check = "deadline" | "concurrent";

/** What a check cannot cover for a tool, and why. Keep it short: every entry is a gap. */
const SKIPPED: Readonly<Record<string, Partial<Record<Check, string>>>> = {
  // current_time's only argument is an IANA zone: no zone can be derived from another by rule.
  current_time: { concurrent: "its one argument is a time zone name; no variant of the example is valid" },
};

/** Extra environment a tool's example needs here beyond a test value for each `requiresEnv` name. */
const EXTRA_ENV: Readonly<Record<string, Record<string, string>>> = {};

/** State a tool's call reads, put in place through the real bindings before the call. */
const SETUP: Readonly<Record<string, (env: Env, args: Record<string, unknown>) => Promise<void>>> = {
  read_result: async (env, { handle }) => {
    const stored: StoredResult = { tool: "generate_lines", callId: "ct-stored", sessionId: "ct", createdAt: new Date().toISOString(), content: `stored for ${String(handle)}` };
    await env.KV.put(storedResultKey(String(handle)), JSON.stringify(stored));
  },
};

const TOOLS = [...new Set(DISCOVERED_TOOLS.map((tool) => tool.name))].filter((name) => registry.get(name)?.fixture !== true);

const app = createApp(testParts);
const config = loadConfig(env);

function entryOf(name: string): ToolEntry {
  const entry = registry.get(name);
  if (entry === undefined) throw new Error(`${name} is discovered but not registered`);
  return entry;
}

function exampleOf(entry: ToolEntry): Record<string, unknown> {
  if (entry.example === undefined) throw new Error(`${entry.name} has no example`);
  return entry.example;
}

/** The test environment with every variable the tool requires set, so it is available. */
function envFor(entry: ToolEntry): Env {
  const secrets = Object.fromEntries(entry.requiresEnv.map((name) => [name, `test-${name.toLowerCase()}`]));
  return { ...env, ...secrets, ...EXTRA_ENV[entry.name] } as Env;
}

/** A tool is held for a person when it is risky or configuration names it. */
function needsApproval(entry: ToolEntry): boolean {
  return entry.risky === true || config.approval.requiredFor.some((pattern) => compileGlob(pattern)(entry.name));
}

interface WireResult {
  id: string;
  status: "ok" | "error" | "pending_approval";
  error_code: string | null;
  approval?: { id: string };
  message: { content: string };
}

/** POSTs calls to /v1/tool-calls of a Worker whose environment the tool can work in, as `token`'s key. */
async function callOver(entry: ToolEntry, calls: unknown[], token = TEST_ADMIN_TOKEN): Promise<WireResult[]> {
  const ctx = createExecutionContext();
  const response = await app.request(
    "/v1/tool-calls",
    { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ tool_calls: calls }) },
    envFor(entry),
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: WireResult[] }).results;
}

async function callOne(entry: ToolEntry, id: string, args: Record<string, unknown>, token?: string): Promise<WireResult> {
  await SETUP[entry.name]?.(envFor(entry), args);
  const [result] = await callOver(entry, [openaiCall(id, entry.name, args)], token);
  if (result === undefined) throw new Error("no result");
  return result;
}

/** Every property schema in a JSON Schema with its path: nested objects and array items too. */
function properties(schema: JsonSchema, path = ""): { path: string; schema: JsonSchema }[] {
  const found: { path: string; schema: JsonSchema }[] = [];
  const own = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(own)) {
    const here = path === "" ? name : `${path}.${name}`;
    found.push({ path: here, schema: property });
    found.push(...properties(property, here));
    if (typeof property.items === "object" && property.items !== null) found.push(...properties(property.items as JsonSchema, `${here}[]`));
  }
  return found;
}

/**
 * Ten argument sets derived from the example that the schema accepts, each carrying a marker of
 * its own: a string argument made unique per call. Undefined when no string argument can vary.
 */
function variantsOf(entry: ToolEntry): { args: Record<string, unknown>; marker: string }[] | undefined {
  const example = exampleOf(entry);
  const rewrites: ((value: string, i: number) => string)[] = [
    (value, i) => `${value}${String.fromCharCode(97 + i)}q`,
    // Fixed-format values (an id, a uuid): the last two characters become a per-call hex pair.
    (value, i) => `${value.slice(0, -2)}${(0xa0 + i).toString(16)}`,
  ];
  for (const [key, value] of Object.entries(example)) {
    if (typeof value !== "string") continue;
    for (const rewrite of rewrites) {
      const variants = Array.from({ length: 10 }, (_, i) => ({ args: { ...example, [key]: rewrite(value, i) }, marker: rewrite(value, i) }));
      if (variants.every((variant) => entry.schema.safeParse(variant.args).success)) return variants;
    }
  }
  return undefined;
}

/** A value of the wrong JSON type for a property, which no coercion rule repairs. */
function wrongValueFor(schema: JsonSchema): unknown {
  return schema.type === "object" ? 12345 : { wrong: true };
}

/**
 * Ten agent keys, one per concurrent call: tools that keep state per key (a workspace, memory)
 * legitimately show one caller's writes to that caller's next call; across keys nothing may leak.
 */
let agentKeys: Promise<string[]> | undefined;
function tenKeys(): Promise<string[]> {
  agentKeys ??= Promise.all(Array.from({ length: 10 }, (_, i) => createKey({ name: `contract-${i}`, role: "agent" }).then((key) => key.key)));
  return agentKeys;
}

describe.for(TOOLS)("%s keeps the tool contract", (name) => {
  const entry = entryOf(name);

  it("describes itself and every parameter", () => {
    expect(entry.description.trim().length, "description").toBeGreaterThan(20);
    for (const property of properties(entry.parameters)) {
      const described = typeof property.schema.description === "string" && property.schema.description.trim() !== "";
      expect(described, `parameter ${property.path} has no description`).toBe(true);
    }
  });

  it("has example arguments that its schema and the JSON Schema the model sees both accept", () => {
    const example = exampleOf(entry);
    const parsed = entry.schema.safeParse(example);
    expect(parsed.success, parsed.success ? "" : parsed.error.message).toBe(true);
    const modelSchema = z.fromJSONSchema(entry.parameters);
    expect(modelSchema.safeParse(example).success).toBe(true);
  });

  it("gives definitions the OpenAI and Anthropic SDK types and MCP's ToolSchema accept", () => {
    const definition = withOverrides(entry, envFor(entry));
    // OpenAI: the SDK's type at compile time; the name rule the API enforces at run time.
    const openai: OpenAI.Chat.Completions.ChatCompletionFunctionTool = toOpenAITool(definition);
    expect(openai.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(openai.function.parameters).toMatchObject({ type: "object" });
    // Anthropic: its input_schema must be an object schema, whose required fields it declares.
    const anthropic = toAnthropicTool(definition);
    expect(anthropic.input_schema.type).toBe("object");
    const typed: Anthropic.Messages.Tool = { ...anthropic, input_schema: { ...anthropic.input_schema, type: "object" } };
    const declared = Object.keys((typed.input_schema.properties ?? {}) as object);
    for (const field of typed.input_schema.required ?? []) expect(declared).toContain(field);
    // MCP: the SDK's own zod schema for a tools/list entry.
    const mcp = toMcpTool(definition);
    expect(ToolSchema.safeParse(mcp).error?.message).toBeUndefined();
  });

  it("answers its example through /v1/tool-calls with a structured result", async () => {
    const result = await callOne(entry, `ct-${name}-example`, exampleOf(entry));
    if (needsApproval(entry)) {
      expect(result).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED", approval: { id: expect.any(String) } });
      return;
    }
    expect(result.error_code, result.message.content).toBeNull();
    expect(result.status).toBe("ok");
    expect(result.message.content.trim()).not.toBe("");
  });

  it("names the field when an argument has the wrong type", async ({ skip }) => {
    const [first] = properties(entry.parameters);
    if (first === undefined) return skip("takes no arguments");
    const field = first.path.split(".")[0] ?? first.path;
    const top = (entry.parameters.properties as Record<string, JsonSchema>)[field] ?? {};
    const result = await callOne(entry, `ct-${name}-wrong`, { ...exampleOf(entry), [field]: wrongValueFor(top) });
    expect(result.error_code).toBe("INVALID_ARGUMENTS");
    expect(result.message.content).toContain(field);
  });

  it("ends with TOOL_TIMEOUT past its deadline, with the handler's signal fired", async ({ skip }) => {
    const reason = SKIPPED[name]?.deadline;
    if (reason !== undefined) return skip(reason);
    // The real handler under the real executor; the wrapper only keeps the context it was given.
    let seen: ToolContext | undefined;
    const observed: ToolEntry = { ...entry, handler: (args, ctx) => ((seen = ctx), entry.handler(args, ctx)) };
    const args = entry.schema.parse(exampleOf(entry)) as Record<string, unknown>;
    await SETUP[name]?.(envFor(entry), args);
    const now = Date.now();
    const execute = createExecutor(new BreakerRegistry());
    const { run } = await execute(
      observed,
      args,
      {
        callId: `ct-${name}-deadline`,
        sessionId: `ct-${name}`,
        keyId: "contract",
        toolName: name,
        env: envFor(entry),
        dependencyResults: new Map(),
        waitUntil: () => undefined,
        client: { progress: () => undefined, log: () => undefined },
        mayUse: () => true,
        format: "openai",
      },
      undefined,
      { deadlineAt: now, limit: { kind: "call", ms: 0 }, startedAt: now, retry: { ...config.retry, maxAttempts: 1 }, breaker: config.breaker },
    );
    if (run.ok) {
      // A handler that never yields answers before any timer can fire, and local I/O (KV) may
      // come back before a zero deadline's timer: such a call was never past its deadline.
      expect(seen).toBeDefined();
      return skip("answered before a zero deadline's timer fired (synchronous, or its I/O came back first)");
    }
    expect(toEnvelope(run.failure).error_code).toBe("TOOL_TIMEOUT");
    expect(seen?.signal.aborted).toBe(true);
  });

  it("gives each of ten concurrent calls with different arguments its own result", async ({ skip }) => {
    const reason = SKIPPED[name]?.concurrent;
    if (reason !== undefined) return skip(reason);
    const variants = variantsOf(entry);
    expect(variants, "no string argument of the example can vary; list the tool in SKIPPED with the reason").toBeDefined();
    if (variants === undefined) return;
    const keys = await tenKeys();
    const results = await Promise.all(variants.map((variant, i) => callOne(entry, `ct-${name}-c${i}`, variant.args, keys[i])));
    if (needsApproval(entry)) {
      expect(results.every((result) => result.status === "pending_approval")).toBe(true);
      expect(new Set(results.map((result) => result.approval?.id)).size).toBe(10);
      return;
    }
    results.forEach((result, i) => {
      expect(result.id).toBe(`ct-${name}-c${i}`);
      expect(result.message.content).toContain(variants[i]?.marker);
      for (const [j, other] of variants.entries()) if (j !== i) expect(result.message.content).not.toContain(other.marker);
    });
  });
});

describe("the contract suite", () => {
  it("finds an example its schema accepts on every discovered tool, fixtures too", () => {
    for (const { name } of DISCOVERED_TOOLS) {
      const entry = entryOf(name);
      expect(entry.example, name).toBeDefined();
      expect(entry.schema.safeParse(entry.example).success, name).toBe(true);
    }
  });


  it("covers the discovered tools, so a new tool file is checked without being listed here", () => {
    expect(TOOLS).toEqual(expect.arrayContaining(["echo", "current_time", "generate_lines", "github_repo", "read_result", "delete_result", "tool_search"]));
    expect(TOOLS.some((tool) => tool.startsWith("test_"))).toBe(false);
  });
});
