import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";

interface ToolList {
  format: string;
  toolset: string | null;
  tools: Record<string, unknown>[];
}

describe("GET /v1/tools", () => {
  it("lists available tools in OpenAI's shape by default, sorted, leaving out unavailable ones", async () => {
    const body = await json<ToolList>(await api("/v1/tools"));
    expect(body.format).toBe("openai");
    const names = body.tools.map((t) => (t.function as { name: string }).name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["echo", "current_time", "generate_lines", "read_result"]));
    // GITHUB_TOKEN is unset in the test environment, so the GitHub tool is hidden.
    expect(names).not.toContain("github_repo");
    expect(body.tools[0]).toMatchObject({
      type: "function",
      function: { name: expect.any(String), description: expect.any(String), parameters: { type: "object" } },
    });
  });

  it("gives Anthropic's shape", async () => {
    const body = await json<ToolList>(await api("/v1/tools?format=anthropic"));
    const echo = body.tools.find((t) => t.name === "echo");
    expect(echo).toMatchObject({ name: "echo", input_schema: { type: "object", required: ["text"] } });
    expect(Object.keys(echo ?? {}).sort()).toEqual(["description", "input_schema", "name"]);
  });

  it("gives MCP's shape", async () => {
    const body = await json<ToolList>(await api("/v1/tools?format=mcp"));
    expect(body.tools.find((t) => t.name === "echo")).toMatchObject({ name: "echo", inputSchema: { type: "object" } });
  });

  it("applies dynamic schema overrides at request time", async () => {
    const body = await json<ToolList>(await api("/v1/tools?format=mcp"));
    expect(body.tools.find((t) => t.name === "current_time")?.description).toContain("Without a timezone it uses UTC");
  });

  it("narrows to a toolset, resolving its includes", async () => {
    const core = await json<ToolList>(await api("/v1/tools?toolset=core&format=mcp"));
    expect(core.tools.map((t) => t.name)).toEqual(["current_time", "echo", "generate_lines"]);
    const research = await json<ToolList>(await api("/v1/tools?toolset=research&format=mcp"));
    expect(research.tools.map((t) => t.name)).toEqual(["current_time", "echo", "generate_lines", "read_result", "web_extract", "web_fetch"]);
  });

  it("answers 404 for an unknown toolset and 400 for an unknown format", async () => {
    const missing = await api("/v1/tools?toolset=nope");
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error_code: "UNKNOWN_TOOLSET" });
    const bad = await api("/v1/tools?format=cohere");
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "format" }] });
  });
});

describe("GET /v1/tools/{name}", () => {
  it("shows the definition, every provider shape and availability", async () => {
    const body = await json(await api("/v1/tools/echo"));
    expect(body).toMatchObject({
      name: "echo",
      toolset: "core",
      emoji: "🔁",
      available: true,
      unavailable_reason: null,
      requires_env: [],
      max_result_size_chars: 100_000,
    });
    expect(body.definitions).toMatchObject({ openai: { type: "function" }, anthropic: { input_schema: {} }, mcp: { inputSchema: {} } });
  });

  it("shows an unavailable tool with the reason", async () => {
    const body = await json(await api("/v1/tools/github_repo"));
    expect(body).toMatchObject({ available: false, unavailable_reason: "missing required environment variable: GITHUB_TOKEN", requires_env: ["GITHUB_TOKEN"] });
  });

  it("answers 404 with close matches for an unknown tool", async () => {
    const res = await api("/v1/tools/ecko");
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error_code: "UNKNOWN_TOOL", suggestion: expect.stringContaining("echo") });
  });
});
