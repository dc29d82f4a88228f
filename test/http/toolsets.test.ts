import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

interface Toolset {
  name: string;
  kind: string;
  tools: string[];
  includes: string[];
  resolved_tools: string[];
}

describe("toolsets API", () => {
  it("lists static, registry-only and custom toolsets sorted by name", async () => {
    const { toolsets } = await json<{ toolsets: Toolset[] }>(await api("/v1/toolsets"));
    const names = toolsets.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["core", "research", "results", "web"]));
    expect(toolsets.find((t) => t.name === "research")).toMatchObject({ kind: "static", includes: ["web", "core", "results"] });
  });

  it("shows a toolset's direct tools, includes and resolved tools", async () => {
    const research = await json<Toolset>(await api("/v1/toolsets/research"));
    expect(research.tools).toEqual([]);
    expect(research.resolved_tools).toEqual(["current_time", "echo", "generate_lines", "github_repo", "read_result", "web_extract", "web_fetch", "web_search"]);
    const core = await json<Toolset>(await api("/v1/toolsets/core"));
    expect(core.tools).toEqual(["current_time", "echo", "generate_lines"]);
  });

  it("resolves all and * to every tool", async () => {
    const all = await json<Toolset>(await api("/v1/toolsets/all"));
    const star = await json<Toolset>(await api("/v1/toolsets/*"));
    expect(all.resolved_tools).toEqual(star.resolved_tools);
    expect(all.resolved_tools).toContain("github_repo");
  });

  it("creates a custom toolset that resolves and filters like a built-in, then deletes it", async () => {
    const created = await api("/v1/toolsets", { body: { name: "ts-custom-a", description: "mine", tools: ["echo"], includes: ["results"] } });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ name: "ts-custom-a", kind: "custom", resolved_tools: ["echo", "read_result"] });

    const listed = await json<{ tools: { name: string }[] }>(await api("/v1/tools?toolset=ts-custom-a&format=mcp"));
    expect(listed.tools.map((t) => t.name)).toEqual(["echo", "read_result"]);

    const calls = await json<{ results: { error_code: string | null }[] }>(
      await api("/v1/tool-calls", {
        body: { toolset: "ts-custom-a", tool_calls: [openaiCall("1", "current_time", "{}"), openaiCall("2", "echo", '{"text":"x"}')] },
      }),
    );
    expect(calls.results.map((r) => r.error_code)).toEqual(["PERMISSION_DENIED", null]);

    const nested = await api("/v1/toolsets", { body: { name: "ts-custom-b", includes: ["ts-custom-a", "core"] } });
    expect(await json(nested)).toMatchObject({ resolved_tools: ["current_time", "echo", "generate_lines", "read_result"] });

    expect((await api("/v1/toolsets/ts-custom-a", { method: "DELETE" })).status).toBe(204);
    expect((await api("/v1/toolsets/ts-custom-a")).status).toBe(404);
    expect((await api("/v1/toolsets/ts-custom-a", { method: "DELETE" })).status).toBe(404);
  });

  it("refuses a built-in name with 409, and deleting a built-in with 409", async () => {
    for (const name of ["core", "research", "all"]) {
      const res = await api("/v1/toolsets", { body: { name, tools: [] } });
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({ error_code: "CONFLICT" });
    }
    expect((await api("/v1/toolsets/core", { method: "DELETE" })).status).toBe(409);
  });

  it("refuses a second custom toolset of the same name with 409", async () => {
    expect((await api("/v1/toolsets", { body: { name: "ts-dup", tools: ["echo"] } })).status).toBe(201);
    expect((await api("/v1/toolsets", { body: { name: "ts-dup", tools: ["echo"] } })).status).toBe(409);
  });

  it("names the field when tools or includes are unknown or the name is invalid", async () => {
    const unknownTool = await api("/v1/toolsets", { body: { name: "ts-bad-1", tools: ["nope"] } });
    expect(unknownTool.status).toBe(400);
    expect(await json(unknownTool)).toMatchObject({ issues: [{ path: "tools", message: expect.stringContaining("nope") }] });
    const unknownInclude = await api("/v1/toolsets", { body: { name: "ts-bad-2", includes: ["nope"] } });
    expect(await json(unknownInclude)).toMatchObject({ issues: [{ path: "includes" }] });
    const selfInclude = await api("/v1/toolsets", { body: { name: "ts-bad-3", includes: ["ts-bad-3"] } });
    expect(await json(selfInclude)).toMatchObject({ issues: [{ path: "includes" }] });
    const badName = await api("/v1/toolsets", { body: { name: "has space" } });
    expect(await json(badName)).toMatchObject({ issues: [{ path: "name" }] });
    const extra = await api("/v1/toolsets", { body: { name: "ts-bad-4", colour: "red" } });
    expect(extra.status).toBe(400);
  });
});
