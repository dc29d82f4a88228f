import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TOOL_SEARCH } from "../../src/catalog/tool-search-index.ts";
import { registry } from "../../src/registry/registry.ts";
import { rpc } from "../mcp/helpers.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { anthropicCall, openaiCall } from "../support/tool-calls.ts";

interface CallResults {
  results: { status: string; error_code: string | null; message: { content: string } }[];
}

interface SearchAnswer {
  query: string;
  format: string;
  tools: Record<string, unknown>[];
  hint?: string;
}

async function search(call: unknown, token?: string): Promise<SearchAnswer> {
  const response = await api("/v1/tool-calls", {
    body: { tool_calls: [call] },
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
  expect(response.status).toBe(200);
  const [result] = (await json<CallResults>(response)).results;
  expect(result?.status).toBe("ok");
  return JSON.parse(result?.message.content ?? "") as SearchAnswer;
}

const openaiNames = (answer: SearchAnswer) => answer.tools.map((tool) => (tool.function as { name: string }).name);

describe("tool_search", () => {
  it("is registered under the name the deferred listing keeps", () => {
    expect(registry.get(TOOL_SEARCH)?.toolset).toBe("discovery");
  });

  it("finds a tool by words of its description and returns its full definition in the call's shape", async () => {
    const answer = await search(openaiCall("ts1", "tool_search", { query: "repeat text upper-cased" }));
    expect(answer.format).toBe("openai");
    expect(openaiNames(answer)[0]).toBe("echo");
    expect(answer.tools[0]).toMatchObject({ type: "function", function: { name: "echo", parameters: { type: "object", required: ["text"] } } });
  });

  it("answers an Anthropic call with Anthropic definitions, unless the call asks for another shape", async () => {
    const anthropic = await search(anthropicCall("ts2", "tool_search", { query: "numbered lines" }));
    expect(anthropic.tools[0]).toMatchObject({ name: "generate_lines", input_schema: { type: "object" } });
    const mcp = await search(anthropicCall("ts3", "tool_search", { query: "numbered lines", format: "mcp" }));
    expect(mcp.tools[0]).toMatchObject({ name: "generate_lines", inputSchema: { type: "object" } });
  });

  it("answers over /mcp with MCP definitions", async () => {
    const answer = await rpc("/mcp", "tools/call", { name: "tool_search", arguments: { query: "numbered lines" } });
    const content = (answer.result?.content as { type: string; text: string }[] | undefined)?.[0];
    const found = JSON.parse(content?.text ?? "") as SearchAnswer;
    expect(found.format).toBe("mcp");
    expect(found.tools[0]).toMatchObject({ name: "generate_lines", inputSchema: { type: "object" } });
  });

  it("finds a tool by a parameter name, and by a prefix or a small typo of a word", async () => {
    expect(openaiNames(await search(openaiCall("ts4", "tool_search", { query: "timezone" })))[0]).toBe("current_time");
    expect(openaiNames(await search(openaiCall("ts5", "tool_search", { query: "handl" })))).toEqual(expect.arrayContaining(["read_result", "delete_result"]));
    expect(openaiNames(await search(openaiCall("ts6", "tool_search", { query: "generte lines" })))[0]).toBe("generate_lines");
  });

  it("keeps to the tools the key may use, and says so when nothing it may use matches", async () => {
    const key = await createKey({ name: "ts-narrow", role: "agent", policy: { mode: "whitelist", patterns: ["tool_search", "echo"] } });
    const answer = await search(openaiCall("ts7", "tool_search", { query: "stored result handle" }), key.key);
    expect(answer.tools).toEqual([]);
    expect(answer.hint).toMatch(/No tool you may use matches/);
    expect(openaiNames(await search(openaiCall("ts8", "tool_search", { query: "text" }), key.key))).toEqual(["echo"]);
  });

  it("keeps to the request's toolset as well", async () => {
    const response = await api("/v1/tool-calls", {
      body: { toolset: "agent", tool_calls: [openaiCall("ts9", "tool_search", { query: "delete stored result" })] },
    });
    const [result] = (await json<CallResults>(response)).results;
    const names = openaiNames(JSON.parse(result?.message.content ?? "") as SearchAnswer);
    expect(names).not.toContain("delete_result");
  });

  it("leaves out unavailable tools and never lists itself", async () => {
    // GITHUB_TOKEN is unset in the test environment, so github_repo is unavailable.
    const names = openaiNames(await search(openaiCall("ts10", "tool_search", { query: "github repository search tool", limit: 20 })));
    expect(names).not.toContain("github_repo");
    expect(names).not.toContain("tool_search");
  });

  it("sees a tool registered after its index was built, and forgets a removed one", async () => {
    const query = { query: "quasar telemetry" };
    expect(openaiNames(await search(openaiCall("ts11", "tool_search", query)))).toEqual([]);
    registry.register({
      name: "ts_quasar_probe",
      toolset: "ts-late",
      schema: z.object({ telemetry: z.string().describe("Which reading.") }),
      description: "Reads a quasar probe.",
      handler: () => "ok",
    });
    try {
      expect(openaiNames(await search(openaiCall("ts12", "tool_search", query)))).toEqual(["ts_quasar_probe"]);
    } finally {
      registry.deregister("ts_quasar_probe");
    }
    expect(openaiNames(await search(openaiCall("ts13", "tool_search", query)))).toEqual([]);
  });

  it("returns at most `limit` tools and refuses an empty query naming the field", async () => {
    expect((await search(openaiCall("ts14", "tool_search", { query: "result", limit: 1 }))).tools).toHaveLength(1);
    const response = await api("/v1/tool-calls", { body: { tool_calls: [openaiCall("ts15", "tool_search", { query: "  " })] } });
    const [result] = (await json<CallResults>(response)).results;
    expect(result?.error_code).toBe("INVALID_ARGUMENTS");
    expect(result?.message.content).toContain("query");
  });
  it("searches ten distinct words of a query and drops the rest", async () => {
    registry.register({ name: "ts_pulsar_probe", toolset: "ts-late", schema: z.object({}), description: "Reads a pulsar probe.", handler: () => "ok" });
    try {
      const tenMisses = Array.from({ length: 10 }, (_, i) => `zzqx${i}`).join(" ");
      expect(openaiNames(await search(openaiCall("ts16", "tool_search", { query: `zzqx0 zzqx0 pulsar` })))).toEqual(["ts_pulsar_probe"]);
      expect(openaiNames(await search(openaiCall("ts17", "tool_search", { query: `${tenMisses} pulsar` })))).toEqual([]);
    } finally {
      registry.deregister("ts_pulsar_probe");
    }
  });

  it("answers 100 one-letter words over 2,000 wordy tools without prefix-matching every term", async () => {
    const names = Array.from({ length: 2_000 }, (_, i) => `ts_bulk_${i}`);
    const words = (i: number) => Array.from({ length: 150 }, (_, w) => `word${(i * 151 + w) % 5_000}x`).join(" ");
    for (const [i, name] of names.entries()) registry.register({ name, toolset: "ts-bulk", schema: z.object({}), description: words(i), handler: () => "ok" });
    try {
      const letters = Array.from({ length: 100 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(" ");
      const found = openaiNames(await search(openaiCall("ts18", "tool_search", { query: letters, limit: 20 })));
      expect(found.filter((name) => name.startsWith("ts_bulk_"))).toEqual([]);
    } finally {
      for (const name of names) registry.deregister(name);
    }
  });
});
