/** Tool access for a key: toolsets first (nested and custom ones resolved), then its policy. */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal, ToolPolicy } from "../../src/auth/principal.ts";
import { createToolAccess, decideToolAccess } from "../../src/policy/tool-access.ts";
import { registry } from "../../src/registry/registry.ts";
import { createCustomToolset, kvToolsetLookup } from "../../src/toolsets/custom-toolsets.ts";
import type { CustomToolsetLookup } from "../../src/toolsets/resolve.ts";

const MCP_TOOLS = ["mcp__github__create_issue", "mcp__github__list_issues", "mcp__fs__read_file"];

beforeAll(() => {
  for (const name of MCP_TOOLS)
    registry.register({ name, toolset: name.startsWith("mcp__github") ? "mcp-github" : "mcp-fs", schema: z.object({}), handler: () => "" });
});
afterAll(() => {
  for (const name of MCP_TOOLS) registry.deregister(name);
});

const principal = (toolsets: string[] | null, policy: ToolPolicy = { mode: "deny", patterns: [] }): Principal => ({
  keyId: "test-key",
  name: "test",
  role: "agent",
  toolsets,
  policy,
  rateLimitPerMinute: null,
  scopes: [],
});
const noCustom: CustomToolsetLookup = () => Promise.resolve(undefined);
const access = (p: Principal, lookup: CustomToolsetLookup = noCustom) => createToolAccess(p, lookup);

describe("test fixtures", () => {
  it("are outside an unrestricted key, whether by default, by all, or by a deny policy", async () => {
    for (const p of [principal(null), principal(["all"]), principal(null, { mode: "deny", patterns: ["shell"] })]) {
      expect((await access(p)).decide("test_simple_text")).toMatchObject({ allowed: false, rule: "fixture" });
      expect((await access(p)).decide("echo").allowed).toBe(true);
    }
  });

  it("are reachable by a key whose toolsets name theirs", async () => {
    const { decide } = await access(principal(["conformance"]));
    expect(decide("test_simple_text")).toEqual({ allowed: true, rule: "default:allow" });
    expect(decide("echo").allowed).toBe(false);
  });

  it("are reachable by a key that names their toolset beside all", async () => {
    const { decide } = await access(principal(["all", "conformance"]));
    expect(decide("test_simple_text")).toEqual({ allowed: true, rule: "default:allow" });
    expect(decide("echo").allowed).toBe(true);
  });
});

describe("toolset restriction", () => {
  it("allows every tool, by default:allow, to a key with no toolsets and no patterns", async () => {
    const { decide } = await access(principal(null));
    expect(decide("echo")).toEqual({ allowed: true, rule: "default:allow" });
    expect(decide("anything_at_all")).toEqual({ allowed: true, rule: "default:allow" });
  });

  it("resolves included toolsets: research reaches core, web and results", async () => {
    const { decide } = await access(principal(["research"]));
    for (const tool of ["echo", "current_time", "github_repo", "read_result"]) expect(decide(tool)).toEqual({ allowed: true, rule: "default:allow" });
  });

  it("denies a tool outside the key's toolsets, naming them in the rule and the message", async () => {
    const decision = await decideToolAccess(principal(["core", "results"]), "github_repo", noCustom);
    expect(decision).toEqual({
      allowed: false,
      rule: "toolsets:[core,results]",
      message: expect.stringMatching(/^Tool 'github_repo' is not in the toolsets this API key may use \(core, results\)\. GET \/v1\/tools/),
    });
  });

  it("resolves custom toolsets from KV, nested inside each other and around built-ins", async () => {
    expect((await createCustomToolset(env.KV, "ta-inner", { description: "", tools: ["mcp__fs__read_file"], includes: ["mcp-github"] })).ok).toBe(true);
    expect((await createCustomToolset(env.KV, "ta-outer", { description: "", tools: [], includes: ["ta-inner", "results"] })).ok).toBe(true);
    const { decide } = await access(principal(["ta-outer"]), kvToolsetLookup(env.KV));
    for (const tool of [...MCP_TOOLS, "read_result"]) expect(decide(tool).allowed, tool).toBe(true);
    expect(decide("echo")).toMatchObject({ allowed: false, rule: "toolsets:[ta-outer]" });
  });

  it("fails closed when a listed toolset no longer exists", async () => {
    const { decide } = await access(principal(["deleted-custom"]));
    expect(decide("echo")).toMatchObject({ allowed: false, rule: "toolsets:[deleted-custom]" });
  });

  it("treats all and * as every tool, registered now or later", async () => {
    const { decide } = await access(principal(["core", "all"]));
    expect(decide("not_registered_yet")).toEqual({ allowed: true, rule: "default:allow" });
  });

  it("allows nothing to a key with an empty toolset list", async () => {
    const { decide } = await access(principal([]));
    expect(decide("echo")).toMatchObject({ allowed: false, rule: "toolsets:[]", message: expect.stringContaining("(none)") });
  });
});

describe("policy patterns", () => {
  it("whitelist mode allows only matching tools, naming the pattern that matched", async () => {
    const { decide } = await access(principal(null, { mode: "whitelist", patterns: ["echo", "mcp__github__*"] }));
    expect(decide("echo")).toEqual({ allowed: true, rule: "whitelist:echo" });
    expect(decide("mcp__github__create_issue")).toEqual({ allowed: true, rule: "whitelist:mcp__github__*" });
    expect(decide("mcp__fs__read_file")).toEqual({
      allowed: false,
      rule: "default:deny",
      message: expect.stringContaining("is not on this API key's whitelist (echo, mcp__github__*)"),
    });
  });

  it("deny mode allows all but matching tools, naming the pattern that denied", async () => {
    const { decide } = await access(principal(null, { mode: "deny", patterns: ["generate_lines", "mcp__*__create_?ssue"] }));
    expect(decide("generate_lines")).toMatchObject({
      allowed: false,
      rule: "deny:generate_lines",
      message: expect.stringContaining("(pattern 'generate_lines')"),
    });
    expect(decide("mcp__github__create_issue")).toMatchObject({ allowed: false, rule: "deny:mcp__*__create_?ssue" });
    expect(decide("mcp__github__list_issues")).toEqual({ allowed: true, rule: "default:allow" });
  });

  it("names the first matching pattern in the key's order", async () => {
    const { decide } = await access(principal(null, { mode: "whitelist", patterns: ["mcp__*", "mcp__github__*"] }));
    expect(decide("mcp__github__list_issues")).toEqual({ allowed: true, rule: "whitelist:mcp__*" });
  });

  it("whitelist mode with no patterns allows nothing", async () => {
    const { decide } = await access(principal(null, { mode: "whitelist", patterns: [] }));
    expect(decide("echo")).toMatchObject({ allowed: false, rule: "default:deny", message: expect.stringContaining("which is empty") });
  });

  it("checks toolsets before patterns: a whitelisted tool outside the toolsets is denied", async () => {
    const { decide } = await access(principal(["core"], { mode: "whitelist", patterns: ["*"] }));
    expect(decide("echo")).toEqual({ allowed: true, rule: "whitelist:*" });
    expect(decide("github_repo")).toMatchObject({ allowed: false, rule: "toolsets:[core]" });
  });
});

describe("cost per request", () => {
  it("resolves toolsets once per access object, however many tools are decided", async () => {
    let lookups = 0;
    const counting: CustomToolsetLookup = (name) => {
      lookups++;
      return name === "ta-counted" ? Promise.resolve({ description: "", tools: ["echo"], includes: ["core"] }) : Promise.resolve(undefined);
    };
    const { decide } = await access(principal(["ta-counted"], { mode: "deny", patterns: ["x*"] }), counting);
    const before = lookups;
    const names = Array.from({ length: 500 }, (_, i) => `tool_${i}`);
    for (let round = 0; round < 3; round++) for (const name of names) decide(name);
    expect(lookups).toBe(before);
    expect(decide("echo")).toEqual({ allowed: true, rule: "default:allow" });
    expect(decide("echo")).toBe(decide("echo"));
  });
});
