/**
 * Federation against the real `@modelcontextprotocol/server-everything` on loopback (started by
 * the test run's globalSetup), through the Worker's own routes: an admin adds the server, its
 * tools appear with their remote schemas, calls go through the whole pipeline, and a stopped
 * server's tools drop out of the definitions and come back when it restarts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { EVERYTHING_PORT, EVERYTHING_SSE_PORT } from "../../support/test-env.ts";
import { addServer, controlEverything as control, fedApi, listedTools as mcpToolNames, runCall } from "./helpers.ts";

const STREAMABLE_URL = `http://127.0.0.1:${EVERYTHING_PORT}/mcp`;
const SSE_URL = `http://127.0.0.1:${EVERYTHING_SSE_PORT}/sse`;

interface ToolList {
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
}

afterEach(() => {
  vi.useRealTimers();
});

describe("server-everything over Streamable HTTP", () => {
  it("lists its tools as mcp__everything__* with the server's own input schemas", async () => {
    const status = await addServer({ name: "everything", url: STREAMABLE_URL });
    expect(status).toMatchObject({ name: "everything", source: "api", transport: "streamable-http", toolset: "mcp-everything", last_error: null });

    const list = (await (await fedApi("/v1/tools?format=mcp&toolset=mcp-everything")).json()) as ToolList;
    const echo = list.tools.find((tool) => tool.name === "mcp__everything__echo");
    expect(echo?.description).toBe("Echoes back the input string");
    expect(echo?.inputSchema).toMatchObject({
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
    });
    expect(list.tools.map((tool) => tool.name)).toContain("mcp__everything__get-sum");
  });

  it("calls echo and get-sum through the pipeline, coercing numbers sent as strings", async () => {
    expect(await runCall("mcp__everything__echo", { message: "hi there" })).toMatchObject({ status: "ok", message: { content: "Echo: hi there" } });
    expect(await runCall("mcp__everything__get-sum", { a: "2", b: "40" })).toMatchObject({ status: "ok", message: { content: "The sum of 2 and 40 is 42." } });
  });

  it("validates arguments against the remote schema before calling", async () => {
    const result = await runCall("mcp__everything__echo", { message: { not: "a string" } });
    expect(result).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(JSON.parse(result.message.content)).toMatchObject({ issues: [{ path: "message" }] });
  });
});

describe("a stopped server", () => {
  it("drops out of the definitions after the availability TTL, refuses calls as unavailable, and comes back after a restart", async () => {
    await addServer({ name: "restarts", url: STREAMABLE_URL, include: ["echo"] });
    expect(await mcpToolNames("mcp-restarts")).toEqual(["mcp__restarts__echo"]);
    expect(await runCall("mcp__restarts__echo", { message: "before" })).toMatchObject({ status: "ok" });

    expect((await control("stop", EVERYTHING_PORT)).status).toBe(200);
    try {
      // Past the 30 s check TTL and the 60 s flake grace after the last success: the cached
      // "reachable" expires and a failing probe is believed. Only Date moves; timers stay real.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 61_000);
      expect(await mcpToolNames("mcp-restarts")).toEqual([]);
      const refused = await runCall("mcp__restarts__echo", { message: "while down" });
      expect(refused).toMatchObject({ status: "error", error_code: "TOOL_UNAVAILABLE" });
      expect(JSON.parse(refused.message.content).error).toContain("availability check failed");
    } finally {
      expect((await control("start", EVERYTHING_PORT)).status).toBe(200);
    }

    // The next probe, once the unavailable result is 30 s old, reaches the restarted server
    // (with a new session: the old one died with the process).
    vi.setSystemTime(Date.now() + 31_000);
    expect(await mcpToolNames("mcp-restarts")).toEqual(["mcp__restarts__echo"]);
    expect(await runCall("mcp__restarts__echo", { message: "after" })).toMatchObject({ status: "ok", message: { content: "Echo: after" } });
  });
});

describe("fallbacks and limits", () => {
  it("falls back to the legacy HTTP+SSE transport when the server refuses the Streamable HTTP POST", async () => {
    const status = await addServer({ name: "legacy", url: SSE_URL, include: ["echo", "get-sum"] });
    expect(status).toMatchObject({ transport: "sse", last_error: null, tools: [{ name: "mcp__legacy__echo" }, { name: "mcp__legacy__get-sum" }] });
    expect(await runCall("mcp__legacy__get-sum", { a: 1.5, b: "2" })).toMatchObject({ status: "ok", message: { content: "The sum of 1.5 and 2 is 3.5." } });
  });

  it("answers TOOL_TIMEOUT when the server takes longer than its configured timeout", async () => {
    await addServer({ name: "slow", url: STREAMABLE_URL, timeout_ms: 1_000, include: ["trigger-long-running-operation"] });
    const started = Date.now();
    const result = await runCall("mcp__slow__trigger-long-running-operation", { duration: 3, steps: 1 });
    expect(result).toMatchObject({ status: "error", error_code: "TOOL_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
