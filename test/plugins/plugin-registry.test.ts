/**
 * plugins.register: what it accepts, and which calls a plugin's hooks see. Each test builds its
 * own registry over its own Hooks, so nothing leaks into the Worker's pipeline.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type CallEvent, Hooks, hooks } from "../../src/plugins/pipeline-hooks.ts";
import { PluginRegistry } from "../../src/plugins/plugin-registry.ts";
import "../../src/plugins/plugins.gen.ts";

const call = (tool: string, toolset: string, args: Record<string, unknown> = {}, callEnv: Env = env): CallEvent => ({
  tool,
  toolset,
  callId: "c1",
  sessionId: "s1",
  args,
  env: callEnv,
});
const blockAll = () => ({ action: "block" as const, message: "blocked by test" });

describe("plugins.register", () => {
  it("refuses a malformed name, a second plugin of the same name and a plugin with no hook", () => {
    const registry = new PluginRegistry(new Hooks());
    expect(registry.register({ name: "Has Spaces", preCall: blockAll })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not a valid plugin name"),
    });
    expect(registry.register({ name: "guard", preCall: blockAll })).toEqual({ ok: true });
    expect(registry.register({ name: "guard", preCall: blockAll })).toEqual({
      ok: false,
      reason: "plugin 'guard' is already registered; plugin names must be unique.",
    });
    expect(registry.register({ name: "idle" })).toEqual({ ok: false, reason: "plugin 'idle' has no preCall, postCall or transform hook." });
    expect(registry.names()).toEqual(["guard"]);
  });

  it("runs a plugin's hooks only for the tools and toolsets it names, and for every call when it names none", async () => {
    const target = new Hooks();
    const registry = new PluginRegistry(target);
    registry.register({ name: "only-echo-or-web", tools: ["echo"], toolsets: ["web"], preCall: blockAll });
    expect((await target.runPreCall(call("echo", "core"))).blocked).toBe(true);
    expect((await target.runPreCall(call("fetch_url", "web"))).blocked).toBe(true);
    expect((await target.runPreCall(call("current_time", "core"))).blocked).toBe(false);

    registry.register({ name: "everything", transform: ({ result }) => `seen:${result}` });
    const post = { ...call("current_time", "core"), result: "{}", status: "ok" as const, durationMs: 1 };
    expect(await target.runTransform(post)).toBe("seen:{}");
  });
});

describe("a plugin that is off", () => {
  it("is skipped, and reported as absent, for an env where its gate says off; a gate that throws counts as on", async () => {
    const target = new Hooks();
    let on = false;
    new PluginRegistry(target).register({ name: "gated", active: () => on, preCall: blockAll });
    expect(target.hasPreCall(env)).toBe(false);
    expect((await target.runPreCall(call("echo", "core"))).blocked).toBe(false);
    on = true;
    expect(target.hasPreCall(env)).toBe(true);
    expect((await target.runPreCall(call("echo", "core"))).blocked).toBe(true);

    const broken = new Hooks();
    new PluginRegistry(broken).register({
      name: "broken-gate",
      active: () => {
        throw new Error("bad setting");
      },
      preCall: blockAll,
    });
    expect(broken.hasPreCall(env)).toBe(true);
    expect((await broken.runPreCall(call("echo", "core"))).blocked).toBe(true);
  });

  it("lets the shipped plugins off where their settings are blank, so calls build no event for them", () => {
    const blank = { ...env, PLUGIN_BLOCK_ARGUMENT_PATTERN: "", PLUGIN_REDACT_RESULT_FIELDS: " " } as Env;
    expect(hooks.hasPreCall(blank)).toBe(false);
    expect(hooks.hasTransform(blank)).toBe(false);
    expect(hooks.hasPreCall(env)).toBe(true);
  });
});

describe("block-argument-pattern with a bad pattern", () => {
  it("blocks every call, naming the var, when a call's env carries a pattern that does not compile", async () => {
    const outcome = await hooks.runPreCall(call("echo", "core", { text: "hello" }, { ...env, PLUGIN_BLOCK_ARGUMENT_PATTERN: "(unclosed" } as Env));
    expect(outcome).toMatchObject({
      blocked: true,
      message: expect.stringContaining('PLUGIN_BLOCK_ARGUMENT_PATTERN is not a valid JavaScript regular expression ("(unclosed")'),
    });
  });
});

describe("block-argument-pattern at load", () => {
  it("fails to load, naming the var, when the deployment's pattern does not compile", async () => {
    // biome-ignore lint/plugin/no-double-cast: the test sets a plugin var Env does not declare, as a deployer would
    const vars = env as unknown as Record<string, unknown>;
    const configured = vars.PLUGIN_BLOCK_ARGUMENT_PATTERN;
    vars.PLUGIN_BLOCK_ARGUMENT_PATTERN = "[a-";
    try {
      // A fresh instance of the module (the query makes it another module), evaluated as the
      // Worker's load would. A specifier in a variable, since tsc does not know the query form.
      const fresh: string = "../../plugins/block-argument-pattern.ts?bad-pattern";
      await expect(import(fresh) as Promise<unknown>).rejects.toThrow('PLUGIN_BLOCK_ARGUMENT_PATTERN is not a valid JavaScript regular expression ("[a-")');
    } finally {
      vars.PLUGIN_BLOCK_ARGUMENT_PATTERN = configured;
    }
  });
});
