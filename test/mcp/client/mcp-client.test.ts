/**
 * The Worker's MCP client on its own, against the real server-everything and the scripted
 * server: transport choice, version negotiation, and what it refuses before sending anything.
 */
import { describe, expect, it } from "vitest";
import { McpClientError } from "../../../src/mcp/client/json-rpc.ts";
import { McpClient, type McpTarget } from "../../../src/mcp/client/mcp-client.ts";
import { EVERYTHING_PORT, EVERYTHING_SSE_PORT, FAKE_MCP_HOST, TEST_OUTBOUND_ALLOW } from "../../support/test-env.ts";

const target = (name: string, url: string, allow: readonly string[] = TEST_OUTBOUND_ALLOW.split(",")): McpTarget => ({
  name,
  url,
  headers: {},
  timeoutMs: 10_000,
  allow,
});

async function failure(promise: Promise<unknown>): Promise<McpClientError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpClientError);
  return error as McpClientError;
}

describe("McpClient", () => {
  it("speaks Streamable HTTP to server-everything and calls a tool", async () => {
    const client = new McpClient(target("client-streamable", `http://127.0.0.1:${EVERYTHING_PORT}/mcp`));
    const { tools, transport } = await client.listTools();
    expect(transport).toBe("streamable-http");
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(await client.callTool("echo", { message: "direct" })).toEqual({ content: [{ type: "text", text: "Echo: direct" }], isError: false });
    await client.ping();
  });

  it("falls back to legacy SSE and keeps using it for that server", async () => {
    const client = new McpClient(target("client-sse", `http://127.0.0.1:${EVERYTHING_SSE_PORT}/sse`));
    expect((await client.listTools()).transport).toBe("sse");
    expect((await client.callTool("get-sum", { a: 1, b: 2 })).content).toEqual([{ type: "text", text: "The sum of 1 and 2 is 3." }]);
  });

  it("probes the modern era once and speaks it to a server that offers it: envelope, routing headers, no initialize", async () => {
    const client = new McpClient(target("client-modern", `http://${FAKE_MCP_HOST}/modern`));
    const { tools, transport } = await client.listTools();
    expect(transport).toBe("streamable-http");
    expect(tools.map((tool) => tool.name)).toEqual(["whatarrived"]);
    const result = await client.callTool("whatarrived", { note: "hi" });
    expect(JSON.parse(String(result.content[0]?.text))).toEqual({
      version: "2026-07-28",
      capabilities: {},
      method: "tools/call",
      name: "whatarrived",
      arguments: { note: "hi" },
    });
    await client.ping();
  });

  it("falls back to initialize for a 2025 server that refuses the probe, and keeps using it", async () => {
    const client = new McpClient(target("client-2025", `http://127.0.0.1:${EVERYTHING_PORT}/mcp`));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
    expect(await client.callTool("echo", { message: "still 2025" })).toEqual({ content: [{ type: "text", text: "Echo: still 2025" }], isError: false });
  });

  it("refuses a server whose protocol version it does not support", async () => {
    const error = await failure(new McpClient(target("client-future", `http://${FAKE_MCP_HOST}/future`)).listTools());
    expect(error.kind).toBe("protocol");
    expect(error.message).toContain("2099-01-01");
  });

  it("refuses a legacy SSE endpoint on another origin", async () => {
    const error = await failure(new McpClient(target("client-stray", `http://${FAKE_MCP_HOST}/stray`)).listTools());
    expect(error).toMatchObject({ kind: "protocol", message: expect.stringContaining("http://elsewhere.test") });
  });

  it("refuses loopback without an allow list entry, before any request", async () => {
    const error = await failure(new McpClient(target("client-ssrf", `http://127.0.0.1:${EVERYTHING_PORT}/mcp`, [])).ping());
    expect(error.kind).toBe("refused");
    expect(error.message).toContain("OUTBOUND_ALLOW");
  });

  it("stops at the server's timeout", async () => {
    const client = new McpClient({ ...target("client-slow", `http://127.0.0.1:${EVERYTHING_PORT}/mcp`), timeoutMs: 300 });
    const error = await failure(client.callTool("trigger-long-running-operation", { duration: 2, steps: 1 }));
    expect(error.kind).toBe("timeout");
  });
});
