/**
 * The official MCP SDK's Client over its Streamable HTTP transport against the real Worker in
 * workerd (ports 9233 and 9234), authenticating with an API key in the transport's requestInit.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, LATEST_PROTOCOL_VERSION, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, serveToolgate, type ServedToolgate } from "../../scripts/mcp/serve-toolgate.ts";
import { SUPPORTED_PROTOCOL_VERSIONS as OURS } from "../../src/mcp/server/protocol-versions.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

describe("the MCP SDK client against /mcp", () => {
  let served: ServedToolgate;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    served = await serveToolgate(ROOT, { entryPort: 9233, directPort: 9234 });
    const key = await createKey(served, { name: "sdk-client", role: "agent", toolsets: ["core", "conformance"] });
    client = new Client({ name: "toolgate-test", version: "1.0.0" });
    transport = new StreamableHTTPClientTransport(new URL("/mcp", served.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await served?.dispose();
  });

  it("speaks exactly the protocol revisions of the installed SDK", () => {
    expect([...OURS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it("negotiates the SDK's latest protocol revision", () => {
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(client.getServerVersion()?.name).toBe("toolgate");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it("lists exactly the tools the key's toolsets hold", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("echo");
    expect(names).toContain("test_tool_with_progress");
    expect(names).not.toContain("github_repo");
    expect(tools.find((tool) => tool.name === "echo")?.inputSchema.type).toBe("object");
  });

  it("calls echo, with its arguments coerced as over /v1", async () => {
    const result = await client.callTool({ name: "echo", arguments: { text: "hi", times: "2" } });
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ text: "hi hi" }) }]);
  });

  it("gets a failing tool's message and suggestion as an isError result", async () => {
    const result = await client.callTool({ name: "test_error_handling", arguments: {} });
    expect(result.isError).toBe(true);
    const [block] = result.content as { type: string; text: string }[];
    expect(block?.text).toContain("This tool intentionally returns an error for testing");
    expect(block?.text).toContain("Do not repeat the same call unchanged");
  });

  it("gets invalid arguments as a JSON-RPC invalid-params error naming the field", async () => {
    const error = await client.callTool({ name: "echo", arguments: { text: 5 } }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain("'text'");
  });

  it("receives the progress notifications of a call, in order", async () => {
    const progress: number[] = [];
    const result = await client.request(
      { method: "tools/call", params: { name: "test_tool_with_progress", arguments: {} } },
      CallToolResultSchema,
      { onprogress: (step) => progress.push(step.progress) },
    );
    expect(progress).toEqual([0, 50, 100]);
    expect(result.content).toEqual([{ type: "text", text: "Progress test completed." }]);
  });
});
