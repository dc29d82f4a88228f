/**
 * The official MCP SDK's Client over its Streamable HTTP transport against the real Worker in
 * workerd (ports 9233 and 9234), authenticating with an API key in the transport's requestInit.
 * The SDK keeps the Mcp-Session-Id itself; `current_time` needs approval here
 * (APPROVAL_REQUIRED_FOR), so the session's approvals can be seen through it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, LATEST_PROTOCOL_VERSION, McpError, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, type ServedToolgate, serveToolgate } from "../../scripts/mcp/serve-toolgate.ts";
import { SUPPORTED_PROTOCOL_VERSIONS as OURS } from "../../src/mcp/server/protocol-versions.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

describe("the MCP SDK client against /mcp", () => {
  let served: ServedToolgate;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let key: string;

  beforeAll(async () => {
    served = await serveToolgate(ROOT, { entryPort: 9233, directPort: 9234, vars: { APPROVAL_REQUIRED_FOR: "current_time" } });
    key = await createKey(served, { name: "sdk-client", role: "agent", toolsets: ["core", "conformance"] });
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
    const result = await client.request({ method: "tools/call", params: { name: "test_tool_with_progress", arguments: {} } }, CallToolResultSchema, {
      onprogress: (step) => progress.push(step.progress),
    });
    expect(progress).toEqual([0, 50, 100]);
    expect(result.content).toEqual([{ type: "text", text: "Progress test completed." }]);
  });

  it("keeps the session id initialize returned, and in that session a re-sent call gets its approved outcome", async () => {
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}\.\d+\.[0-9a-f]{64}$/);
    const asked = await client.callTool({ name: "current_time", arguments: { timezone: "UTC" } });
    expect(asked.isError).toBe(true);
    const text = (asked.content as { text: string }[])[0]?.text ?? "";
    const approvalId = /approval ([0-9a-f-]{36}) is pending/.exec(text)?.[1] ?? "";
    const decided = await fetch(new URL(`/v1/approvals/${approvalId}?session_id=mcp-${transport.sessionId?.slice(0, 36) ?? ""}`, served.url), {
      method: "POST",
      headers: { authorization: `Bearer ${served.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", scope: "once" }),
    });
    expect(decided.status).toBe(200);
    const { result } = (await decided.json()) as { result: { content: string } };
    const again = await client.callTool({ name: "current_time", arguments: { timezone: "UTC" } });
    expect(again.isError).toBeUndefined();
    expect(again.content).toEqual([{ type: "text", text: result.content }]);
  });

  it("ends the session with DELETE (terminateSession), and a forged session id is 404", async () => {
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    const forged = new StreamableHTTPClientTransport(new URL("/mcp", served.url), {
      sessionId: "0".repeat(36),
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await forged.start();
    const refused = await forged.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(404);
    await forged.close();
  });
});
