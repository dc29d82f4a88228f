/**
 * The contract every registered tool keeps, run over every tool the generator discovered (test
 * fixtures aside), so a tool is checked the day its file is added: it describes itself and each
 * parameter, its example validates, its definitions pass the providers' SDK types and MCP's own
 * validator, its example answers through POST /v1/tool-calls, a wrong type is named, a call whose
 * deadline has passed ends with TOOL_TIMEOUT without running, one whose deadline passes mid-call
 * ends with TOOL_TIMEOUT and the handler's signal fired, ten concurrent calls each get their
 * own result, and it declares the worst inputs the hostile suite (test/scripts/hostile-tools.test.ts)
 * sends while it probes the isolate.
 *
 * A tool that needs a secret gets a test value for each `requiresEnv` variable; one that calls out
 * reaches the outbound stand-in (test/support/upstream.ts), which must then play its upstream.
 * State a call reads is put in place by its SETUP entry, which can also give the ten concurrent
 * calls their arguments. What a check cannot cover for a tool is listed in SKIPPED with the reason.
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type Anthropic from "@anthropic-ai/sdk";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ADMIN_TOKEN_KEY_ID } from "../../src/auth/admin-token.ts";
import { loadConfig } from "../../src/config/config.ts";
import { toEnvelope } from "../../src/errors/envelope.ts";
import { BreakerRegistry } from "../../src/execution/circuit-breaker.ts";
import { createExecutor } from "../../src/execution/execute.ts";
import { toAnthropicTool, toMcpTool, toOpenAITool } from "../../src/formats/tool-definitions.ts";
import { createApp } from "../../src/http/app.ts";
import { API_SOURCES } from "../../src/openapi-sources/apis.gen.ts";
import { buildTimeToolNames } from "../../src/openapi-sources/build-time-sources.ts";
import { compileGlob } from "../../src/policy/glob.ts";
import { withOverrides } from "../../src/registry/definitions.ts";
import { registry } from "../../src/registry/registry.ts";
import { DISCOVERED_TOOLS } from "../../src/registry/tools.gen.ts";
import type { JsonSchema, ToolContext, ToolEntry } from "../../src/registry/types.ts";
import type { StoredResult } from "../../src/results/limit-result.ts";
import { storedResultKey } from "../../src/storage/keys.ts";
import { workspacePrefix } from "../../src/storage/workspace-keys.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { scriptModel } from "../support/model-script.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { EXAMPLE_HOST, PIXEL_PNG, TEST_BRAVE_KEY } from "../support/web-stub.ts";

type Check = "example" | "deadline" | "concurrent";

/** The model name vision_analyze's calls here use, under which its scripted answer is registered. */
const CONTRACT_VISION_MODEL = "contract-vision";

/** What a check cannot cover for a tool, and why. Keep it short: every entry is a gap. */
const SKIPPED: Readonly<Record<string, Partial<Record<Check, string>>>> = {
  // current_time's only argument is an IANA zone: no zone can be derived from another by rule.
  current_time: { concurrent: "its one argument is a time zone name; no variant of the example is valid" },
  // clarify asks a person: inside a run (the run pauses) or over MCP (elicitation); through
  // /v1/tool-calls nobody can be asked, so it answers that at once.
  clarify: {
    example: "it asks inside an agent run or over MCP; test/agent/run-questions.test.ts and test/tools/clarify.test.ts cover both",
    concurrent: "outside a run and MCP every call is the same refusal",
  },
  // delegate_task needs an agent run to be the parent; through /v1/tool-calls there is none, so it
  // answers its refusal at once. test/tools/delegate-task.test.ts runs it inside runs.
  delegate_task: {
    example: "it runs only inside an agent run; test/tools/delegate-task.test.ts covers it there",
    deadline: "outside an agent run it refuses before any await",
    concurrent: "outside an agent run every call is the same refusal",
  },
  // The pet shop's stand-in (test/support/petstore-stub.ts) answers these from the spec's fixed
  // examples, which carry nothing of the arguments; petstore__showPetById's answer names the pet
  // asked for, so the ten-call check runs there, and the writes are held for approval.
  ...Object.fromEntries(
    ["petstore__listPets", "petstore__searchPets", "petstore__getPetPhoto", "petstore__replacePetNotes", "petstore__getInventory"].map((name) => [
      name,
      { concurrent: "answered from the spec's fixed example, which names no argument" },
    ]),
  ),
  ...Object.fromEntries(
    ["petstore__createPet", "petstore__placeOrder"].map((name) => [name, { concurrent: "its one argument is a body object: no top-level string to vary" }]),
  ),
};

/** Extra environment a tool's example needs here beyond a test value for each `requiresEnv` name. */
const EXTRA_ENV: Readonly<Record<string, Record<string, string>>> = {
  // Any one of its providers' variables makes web_search available (requiresAnyEnv); Brave's stand-in checks this key.
  web_search: { BRAVE_API_KEY: TEST_BRAVE_KEY },
  // The operator's word that the model takes images; the scripted model answers under this name.
  // The scripted model's own endpoint and key, not the test values each required variable gets.
  vision_analyze: {
    MODEL_VISION: "true",
    MODEL_NAME: CONTRACT_VISION_MODEL,
    MODEL_BASE_URL: String(Reflect.get(env, "MODEL_BASE_URL")),
    MODEL_API_KEY: String(Reflect.get(env, "MODEL_API_KEY")),
  },
};

/** Who a call runs as: the bearer token it sends and the key id the gateway knows it by. */
interface Caller {
  token: string;
  keyId: string;
}

const ADMIN: Caller = { token: TEST_ADMIN_TOKEN, keyId: ADMIN_TOKEN_KEY_ID };

/** A tool's preparation for the checks that call it. */
interface Setup {
  /** Puts the state a call with `args` reads in place through the real bindings, for the key `keyId`. */
  seed?: (env: Env, args: Record<string, unknown>, keyId: string) => Promise<void>;
  /**
   * The i-th (0-9) of the ten concurrent calls, for a tool whose example has no top-level string
   * that can vary: its arguments and a marker that its result, and no other call's, must carry.
   */
  vary?: (i: number) => Variant;
}

interface Variant {
  args: Record<string, unknown>;
  marker: string;
}

/** Writes a text file into `keyId`'s workspace, where the files tools of a call as that key look. */
async function seedFile(env: Env, keyId: string, path: string, content: string | Uint8Array): Promise<void> {
  // Per-session workspaces would need the call's session id, which these calls leave to the gateway.
  if ((env.WORKSPACE_SCOPE as string | undefined) !== "key")
    throw new Error(`the contract suite seeds per-key workspaces; WORKSPACE_SCOPE is '${String(env.WORKSPACE_SCOPE)}'`);
  await env.WORKSPACE.put(`${workspacePrefix("key", keyId, "")}${path}`, content);
}

const SETUP: Readonly<Record<string, Setup>> = {
  vision_analyze: {
    seed: async (env, { path }, keyId) => {
      await seedFile(env, keyId, String(path), PIXEL_PNG);
      await scriptModel([{ content: "The screenshot shows a sign-in form saying 'Wrong password'.", repeat: true }], CONTRACT_VISION_MODEL);
    },
  },
  read_result: {
    seed: async (env, { handle }) => {
      const stored: StoredResult = {
        tool: "generate_lines",
        callId: "ct-stored",
        sessionId: "ct",
        createdAt: new Date().toISOString(),
        content: `stored for ${String(handle)}`,
      };
      await env.KV.put(storedResultKey(String(handle)), JSON.stringify(stored));
    },
  },
  read_file: { seed: (env, { path }, keyId) => seedFile(env, keyId, String(path), `# seeded for ${String(path)}\n- one line\n`) },
  patch: { seed: (env, { path, old_string }, keyId) => seedFile(env, keyId, String(path), `// seeded for ${String(path)}\n${String(old_string)}\n`) },
  // The concurrent calls vary the pattern: each key's workspace holds a line only its own matches.
  search_files: { seed: (env, { pattern }, keyId) => seedFile(env, keyId, "src/contract-seed.ts", `// ${String(pattern)}: seeded by the contract suite\n`) },
  // The script's value comes back through a nested echo call, so each result shows its own round trip.
  execute_code: { vary: (i) => ({ args: { code: `const r = await tools.echo({ text: 'run-${i}-q' });\nreturn r.text;` }, marker: `run-${i}-q` }) },
  // The example host's stand-in page names the path it was asked for (test/support/web-stub.ts).
  web_extract: { vary: (i) => ({ args: { urls: [`https://${EXAMPLE_HOST}/contract-${i}q`] }, marker: `contract-${i}q` }) },
  web_fetch: { vary: (i) => ({ args: { urls: [`https://${EXAMPLE_HOST}/contract-${i}q`] }, marker: `contract-${i}q` }) },
  todo: { vary: (i) => ({ args: { todos: [{ id: "1", content: `Check item ${i}q`, status: "in_progress" }], merge: false }, marker: `Check item ${i}q` }) },
};

/** The build-time OpenAPI sources' tools (apis/), registered by the Worker at start. */
const API_TOOLS = buildTimeToolNames(API_SOURCES);
const TOOLS = [...new Set([...DISCOVERED_TOOLS.map((tool) => tool.name), ...API_TOOLS])].filter((name) => registry.get(name)?.fixture !== true);

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
async function callOver(entry: ToolEntry, calls: unknown[], token: string): Promise<WireResult[]> {
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

async function callOne(entry: ToolEntry, id: string, args: Record<string, unknown>, caller: Caller = ADMIN): Promise<WireResult> {
  await SETUP[entry.name]?.seed?.(envFor(entry), args, caller.keyId);
  const [result] = await callOver(entry, [openaiCall(id, entry.name, args)], caller.token);
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
 * Ten argument sets the schema accepts, each carrying a marker of its own: the tool's SETUP
 * `vary`, or else the example with a string argument made unique per call. Undefined when no
 * string argument can vary.
 */
function variantsOf(entry: ToolEntry): Variant[] | undefined {
  const vary = SETUP[entry.name]?.vary;
  if (vary !== undefined) return Array.from({ length: 10 }, (_, i) => vary(i));
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
let agentKeys: Promise<Caller[]> | undefined;
function tenKeys(): Promise<Caller[]> {
  agentKeys ??= Promise.all(
    Array.from({ length: 10 }, (_, i) => createKey({ name: `contract-${i}`, role: "agent" }).then((key) => ({ token: key.key, keyId: key.id }))),
  );
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

  it("declares its worst inputs beside its example, each built lazily into an arguments object", () => {
    // test/scripts/hostile-tools.test.ts sends each one while it probes the isolate (issue 27).
    const inputs = entry.worstInputs ?? [];
    expect(inputs.length, "worstInputs: the inputs at its caps that cost it most").toBeGreaterThan(0);
    for (const input of inputs) {
      expect(input.name.trim().length, "each worst input says what it tries").toBeGreaterThan(10);
      expect(typeof input.args, `${input.name}: args is a function, so start-up never builds it`).toBe("function");
    }
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

  it("answers its example through /v1/tool-calls with a structured result", async ({ skip }) => {
    const reason = SKIPPED[name]?.example;
    if (reason !== undefined) return skip(reason);
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

  /** Runs the example under the real executor with a deadline `ms` from now, keeping the context the handler was given. */
  async function executeWithin(ms: number) {
    // The real handler; the wrapper only keeps the context it was given.
    const observed: { ctx?: ToolContext } = {};
    const wrapped: ToolEntry = { ...entry, handler: (args, ctx) => ((observed.ctx = ctx), entry.handler(args, ctx)) };
    const args = entry.schema.parse(exampleOf(entry)) as Record<string, unknown>;
    const base = {
      callId: `ct-${name}-deadline`,
      sessionId: `ct-${name}`,
      keyId: "contract",
      toolName: name,
      env: envFor(entry),
      dependencyResults: new Map(),
      waitUntil: () => undefined,
      client: { progress: () => undefined, log: () => undefined },
      mayUse: () => true,
      format: "openai" as const,
      reportCredential: () => undefined,
    };
    const execute = createExecutor(new BreakerRegistry());
    const now = Date.now();
    const policy = {
      deadlineAt: now + ms,
      limit: { kind: "call" as const, ms },
      startedAt: now,
      retry: { ...config.retry, maxAttempts: 1 },
      breaker: config.breaker,
    };
    return { ...(await execute(wrapped, args, base, { signal: undefined }, policy)), seen: observed.ctx };
  }

  it("ends with TOOL_TIMEOUT, its handler never started, when its deadline has passed", async () => {
    const { run, attempts, seen } = await executeWithin(0);
    expect(run.ok).toBe(false);
    if (run.ok) return;
    expect(toEnvelope(run.failure).error_code).toBe("TOOL_TIMEOUT");
    expect(attempts).toBe(0);
    expect(seen, "the handler ran past its deadline").toBeUndefined();
  });

  it("ends with TOOL_TIMEOUT past a deadline that passes mid-call, with the handler's signal fired", async ({ skip }) => {
    const reason = SKIPPED[name]?.deadline;
    if (reason !== undefined) return skip(reason);
    await SETUP[name]?.seed?.(envFor(entry), entry.schema.parse(exampleOf(entry)) as Record<string, unknown>, "contract");
    // One millisecond on: the handler starts, and the deadline timer fires while it awaits. The
    // clock can tick between reading it and the executor's own check, which then (rightly)
    // refuses to start; so a few tries.
    let tried = await executeWithin(1);
    for (let i = 0; i < 4 && tried.seen === undefined; i++) tried = await executeWithin(1);
    const { run, seen } = tried;
    expect(seen, "the handler never started").toBeDefined();
    // With no client to go away, the executor answers with the handler's own result (ok or not)
    // only when it came before the deadline timer: that call was never past its deadline.
    if (run.ok || run.failure.kind !== "timeout") {
      return skip(
        `answered (${run.ok ? "ok" : toEnvelope(run.failure).error_code}) before a 1 ms deadline's timer fired: synchronous, or its I/O came back first`,
      );
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

  it("covers the build-time OpenAPI sources' tools too", () => {
    expect(TOOLS).toEqual(expect.arrayContaining(["petstore__listPets", "petstore__showPetById", "petstore__createPet"]));
  });

  it("covers the discovered tools, so a new tool file is checked without being listed here", () => {
    expect(TOOLS).toEqual(expect.arrayContaining(["echo", "current_time", "generate_lines", "github_repo", "read_result", "delete_result", "tool_search"]));
    expect(TOOLS.some((tool) => tool.startsWith("test_"))).toBe(false);
  });
});
