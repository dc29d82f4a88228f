/**
 * web_search through POST /v1/tool-calls with created keys, against stand-ins for Brave Search,
 * Tavily and a self-hosted SearXNG (test/support/web-stub.ts). Each provider is configured by
 * giving the app its variable, as wrangler would; the app and keys are the real ones.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { testParts } from "../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { SEARX_HOST, TEST_BRAVE_KEY, TEST_TAVILY_KEY } from "../support/web-stub.ts";

const app = createApp(testParts);

interface Result {
  status: string;
  error_code: string | null;
  message: { content: string };
}

/** The Worker's app with `vars` added to its env, as wrangler.toml [vars] or secrets would. */
function gateway(vars: Record<string, string>) {
  const withVars = { ...env, ...vars } as Env;
  const send = (path: string, init: { body?: unknown; token?: string }) =>
    app.request(
      `https://toolgate.test${path}`,
      {
        method: init.body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${init.token ?? TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      },
      withVars,
    );
  return {
    send,
    async search(args: unknown): Promise<Result> {
      const created = await send("/v1/keys", { body: { name: `ws-${crypto.randomUUID()}`, role: "agent", toolsets: ["web"] } });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const res = await send("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", "web_search", args)] }, token: key });
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: Result[] }).results[0] as Result;
    },
  };
}

const hitsOf = (result: Result) =>
  JSON.parse(result.message.content) as { provider: string; results: { rank: number; title: string; url: string; snippet: string }[] };

describe("web_search", () => {
  it("is unavailable with no provider configured, and says which variables would make it work", async () => {
    const bare = gateway({});
    const result = await bare.search({ query: "edge" });
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(result.message.content).error).toContain("set one of BRAVE_API_KEY, TAVILY_API_KEY, SEARXNG_URL");
    const listed = (await (await bare.send("/v1/tools?format=mcp&toolset=web", {})).json()) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).not.toContain("web_search");
    const one = (await (await bare.send("/v1/tools/web_search", {})).json()) as { available: boolean; unavailable_reason: string };
    expect(one).toMatchObject({ available: false, unavailable_reason: "missing environment variable: set one of BRAVE_API_KEY, TAVILY_API_KEY, SEARXNG_URL" });
  });

  it("asks Brave Search with its key and returns ranked title, url and snippet", async () => {
    const result = await gateway({ BRAVE_API_KEY: TEST_BRAVE_KEY }).search({ query: "workers", count: 2 });
    expect(result.status).toBe("ok");
    expect(hitsOf(result)).toEqual({
      query: "workers",
      provider: "brave",
      results: [
        { rank: 1, title: "workers result 1", url: "https://example.com/workers/1", snippet: "Snippet 1 about workers." },
        { rank: 2, title: "workers result 2", url: "https://example.com/workers/2", snippet: "Snippet 2 about workers." },
      ],
    });
  });

  it("asks Tavily when only its key is set", async () => {
    const result = await gateway({ TAVILY_API_KEY: TEST_TAVILY_KEY }).search({ query: "durable objects" });
    expect(hitsOf(result)).toMatchObject({ provider: "tavily", results: [{ rank: 1, title: "durable objects result 1" }, { rank: 2 }, { rank: 3 }] });
  });

  it("asks a self-hosted SearXNG at SEARXNG_URL", async () => {
    const result = await gateway({ SEARXNG_URL: `http://${SEARX_HOST}/` }).search({ query: "d1", count: 1 });
    expect(hitsOf(result)).toEqual({
      query: "d1",
      provider: "searxng",
      results: [{ rank: 1, title: "d1 result 1", url: "https://example.com/d1/1", snippet: "Snippet 1 about d1." }],
    });
  });

  it("uses the provider WEB_SEARCH_PROVIDER names over the default order, and says when its variable is missing", async () => {
    const both = await gateway({ BRAVE_API_KEY: TEST_BRAVE_KEY, TAVILY_API_KEY: TEST_TAVILY_KEY, WEB_SEARCH_PROVIDER: "tavily" }).search({ query: "q" });
    expect(hitsOf(both).provider).toBe("tavily");
    const missing = await gateway({ BRAVE_API_KEY: TEST_BRAVE_KEY, WEB_SEARCH_PROVIDER: "searxng" }).search({ query: "q" });
    expect(missing).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(missing.message.content).error).toContain("WEB_SEARCH_PROVIDER is searxng but SEARXNG_URL is not set");
  });

  it("reports a refused API key as an upstream error that names the variable, never the key", async () => {
    const result = await gateway({ BRAVE_API_KEY: "wrong-key-value" }).search({ query: "q" });
    expect(result).toMatchObject({ status: "error", error_code: "UPSTREAM_ERROR" });
    expect(result.message.content).toContain("BRAVE_API_KEY");
    expect(result.message.content).not.toContain("wrong-key-value");
  });

  it("reports a provider that answers 200 with something other than JSON as an upstream error", async () => {
    const result = await gateway({ SEARXNG_URL: `http://${SEARX_HOST}/behind-sign-in/` }).search({ query: "q" });
    expect(result).toMatchObject({ status: "error", error_code: "UPSTREAM_ERROR" });
    expect(JSON.parse(result.message.content).error).toContain("searxng answered not a JSON object");
  });

  it("refuses a SearXNG on a private address unless OUTBOUND_ALLOW lists it", async () => {
    const result = await gateway({ SEARXNG_URL: "http://192.168.1.20:8080" }).search({ query: "q" });
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(result.message.content).error).toContain("OUTBOUND_ALLOW");
  });

  it("refuses an empty or over-long query, naming the field", async () => {
    const brave = gateway({ BRAVE_API_KEY: TEST_BRAVE_KEY });
    for (const query of ["   ", "x".repeat(401)]) {
      const result = await brave.search({ query });
      expect(JSON.parse(result.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS", issues: [{ path: "query" }] });
    }
  });
});
