import { describe, expect, it } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { resolveToolset, toolsetInfo } from "../../src/toolsets/resolve.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

const schema = z.object({ path: z.string().describe("Where.") });

describe("presets", () => {
  it("safe holds the tools that declare readOnly, and no risky tool or fixture", async () => {
    const safe = await resolveToolset("safe");
    expect(safe).toEqual(expect.arrayContaining(["current_time", "echo", "generate_lines", "github_repo", "read_result", "tool_search"]));
    expect(safe).not.toContain("delete_result");
    expect(safe?.some((name) => registry.get(name)?.fixture === true)).toBe(false);
  });

  it("agent holds every built-in tool that does not need approval on every call", async () => {
    const agent = await resolveToolset("agent");
    expect(agent).toEqual(expect.arrayContaining(["current_time", "echo", "github_repo", "read_result", "tool_search"]));
    expect(agent).not.toContain("delete_result");
    expect(agent).not.toContain("test_simple_text");
  });

  it("places a newly registered tool by what it declares, without a list changing", async () => {
    registry.register({ name: "preset_reader", toolset: "preset-test", readOnly: true, schema, handler: () => "ok" });
    registry.register({ name: "preset_writer", toolset: "preset-test", readOnly: true, writes: ["workspace:{path}"], schema, handler: () => "ok" });
    registry.register({ name: "preset_unsaid", toolset: "preset-test", schema, handler: () => "ok" });
    registry.register({ name: "preset_risky", toolset: "preset-test", readOnly: true, risky: true, schema, handler: () => "ok" });
    registry.register({ name: "mcp__preset__remote", toolset: "mcp-preset", readOnly: true, schema, handler: () => "ok" });
    try {
      const safe = await resolveToolset("safe");
      const agent = await resolveToolset("agent");
      expect(safe).toContain("preset_reader");
      // Declaring a write, saying nothing (fail closed), or being risky keeps a tool out of safe.
      for (const name of ["preset_writer", "preset_unsaid", "preset_risky"]) expect(safe).not.toContain(name);
      expect(agent).toEqual(expect.arrayContaining(["preset_reader", "preset_writer", "preset_unsaid"]));
      expect(agent).not.toContain("preset_risky");
      // A remote server's tools are reached by naming its toolset, never through a preset.
      expect(safe).not.toContain("mcp__preset__remote");
      expect(agent).not.toContain("mcp__preset__remote");
    } finally {
      for (const name of ["preset_reader", "preset_writer", "preset_unsaid", "preset_risky", "mcp__preset__remote"]) registry.deregister(name);
    }
  });

  it("shows as a built-in toolset of kind preset, which cannot be replaced", async () => {
    expect(await toolsetInfo("safe")).toMatchObject({ name: "safe", kind: "preset", includes: [] });
    const listed = await json<{ toolsets: { name: string; kind: string }[] }>(await api("/v1/toolsets"));
    expect(listed.toolsets.filter((t) => t.kind === "preset").map((t) => t.name)).toEqual(["agent", "safe"]);
    const clash = await api("/v1/toolsets", { body: { name: "safe", description: "mine", tools: ["echo"], includes: [] } });
    expect(clash.status).toBe(409);
  });

  it("composes: a custom toolset may include a preset", async () => {
    const created = await api("/v1/toolsets", {
      body: { name: "preset-custom", description: "safe plus approvals", tools: ["delete_result"], includes: ["safe"] },
    });
    expect(created.status).toBe(201);
    const shown = await json<{ resolved_tools: string[] }>(await api("/v1/toolsets/preset-custom"));
    expect(shown.resolved_tools).toEqual(expect.arrayContaining(["delete_result", "echo", "tool_search"]));
  });

  it("limits a key: a key on safe may read but not call a tool that is not read-only", async () => {
    const key = await createKey({ name: "preset-safe-key", role: "agent", toolsets: ["safe"] });
    const response = await api("/v1/tool-calls", {
      headers: { authorization: `Bearer ${key.key}` },
      body: { tool_calls: [openaiCall("p1", "echo", { text: "hi" }), openaiCall("p2", "delete_result", { handle: crypto.randomUUID() })] },
    });
    const { results } = await json<{ results: { status: string; error_code: string | null }[] }>(response);
    expect(results.map((r) => r.error_code)).toEqual([null, "PERMISSION_DENIED"]);
  });
});
