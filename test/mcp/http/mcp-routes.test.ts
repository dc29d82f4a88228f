/**
 * The MCP door through the Worker's own fetch handler, with real D1, KV, queues and Durable
 * Objects: transport rules, JSON-RPC errors, key access and toolset scoping, streamed
 * notifications, stored results as resources, and the audit log.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { MCP_BASE, mcpPost, rpc, sseMessages } from "../helpers.ts";

const ping = (id: number | string) => ({ jsonrpc: "2.0", id, method: "ping" });
const toolNames = (result: Record<string, unknown> | undefined) => (result?.tools as { name: string }[]).map((tool) => tool.name);

describe("the transport", () => {
  it("answers 401 with a JSON-RPC error and WWW-Authenticate without a key", async () => {
    const response = await mcpPost("/mcp", ping(1), { token: null });
    expect(response.status).toBe(401);
    // Pointing at the door's protected resource metadata, where OAuth clients discover sign-in (RFC 9728).
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer realm="toolgate", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"',
    );
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, data: { error_code: "UNAUTHENTICATED" } } });
  });

  it("refuses a foreign Host or Origin with 403 before looking at the key (DNS rebinding)", async () => {
    const foreignHost = await exports.default.fetch("http://evil.example.com/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ping(1)),
    });
    expect(foreignHost.status).toBe(403);
    expect(await foreignHost.text()).toContain("Host 'evil.example.com'");
    const foreignOrigin = await mcpPost("/mcp", ping(1), { headers: { origin: "http://evil.example.com" } });
    expect(foreignOrigin.status).toBe(403);
    expect((await mcpPost("/mcp", ping(1), { headers: { origin: "http://localhost:6274" } })).status).toBe(200);
  });

  it("initializes, negotiating the protocol revision", async () => {
    const answer = await rpc("/mcp", "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    expect(answer.result).toMatchObject({
      protocolVersion: "2025-06-18",
      serverInfo: { name: "toolgate" },
      capabilities: { tools: {}, logging: {}, resources: {} },
    });
    expect((await rpc("/mcp", "initialize", { protocolVersion: "1999-01-01" })).result?.protocolVersion).toBe("2025-11-25");
    const initialized = await mcpPost("/mcp", { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(initialized.status).toBe(202);
    expect(await initialized.text()).toBe("");
  });

  it("answers GET with 405, as a server without a standalone stream may, and DELETE only with a key", async () => {
    const get = await exports.default.fetch(`${MCP_BASE}/mcp`, { method: "GET", headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    expect((await exports.default.fetch(`${MCP_BASE}/mcp`, { method: "DELETE" })).status).toBe(401);
  });

  it("refuses a body that is not JSON, a wrong Content-Type and an unknown protocol revision", async () => {
    const notJson = await mcpPost("/mcp", "{nope");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
    expect((await mcpPost("/mcp", ping(1), { headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await mcpPost("/mcp", ping(1), { headers: { accept: "text/html" } })).status).toBe(406);
    const version = await mcpPost("/mcp", ping(1), { headers: { "mcp-protocol-version": "2020-01-01" } });
    expect(version.status).toBe(400);
    expect(await version.text()).toContain("2025-11-25");
  });

  it("maps invalid messages, unknown methods and bad params to their JSON-RPC codes", async () => {
    const invalid = await mcpPost("/mcp", { jsonrpc: "2.0", id: 3, method: 42 });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ id: 3, error: { code: -32600 } });
    expect((await rpc("/mcp", "sampling/createMessage")).error).toMatchObject({ code: -32601 });
    expect((await rpc("/mcp", "logging/setLevel", { level: "loud" })).error).toMatchObject({ code: -32602 });
    expect((await rpc("/mcp", "logging/setLevel", { level: "debug" })).result).toEqual({});
  });

  it("answers a batch under 2025-03-26 in order, and refuses batches from 2025-06-18 on", async () => {
    const batch = [
      ping("a"),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "b", method: "initialize", params: {} },
      ping("c"),
    ];
    const old = await mcpPost("/mcp", batch, { headers: { "mcp-protocol-version": "2025-03-26" } });
    expect(await old.json()).toEqual([
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: "b", error: { code: -32600, message: "Invalid Request: initialize must not be part of a batch." } },
      { jsonrpc: "2.0", id: "c", result: {} },
    ]);
    const current = await mcpPost("/mcp", [ping("a")], { headers: { "mcp-protocol-version": "2025-06-18" } });
    expect(current.status).toBe(400);
    expect(await current.json()).toMatchObject({ error: { code: -32600 } });
  });

  it("refuses a batch of more messages than MAX_TOOL_CALLS with 413, since they would all run at once", async () => {
    const old = { "mcp-protocol-version": "2025-03-26" };
    const fits = await mcpPost(
      "/mcp",
      Array.from({ length: 64 }, (_, i) => ping(i)),
      { headers: old },
    );
    expect(fits.status).toBe(200);
    expect(await fits.json()).toHaveLength(64);
    const over = await mcpPost(
      "/mcp",
      Array.from({ length: 65 }, (_, i) => ping(i)),
      { headers: old },
    );
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("at most 64 messages") } });
  });

  it("refuses a body over MAX_BODY_BYTES that declares no length, without reading it all", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    // A stream has no Content-Length: the size is found by counting.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await exports.default.fetch(`${MCP_BASE}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("MAX_BODY_BYTES") } });
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  });

  it("answers concurrent POSTs independently (no session to share)", async () => {
    const answers = await Promise.all([1, 2, 3].map((id) => mcpPost("/mcp", ping(id)).then((response) => response.json())));
    expect(answers).toEqual([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, result: {} })));
  });
});

describe("tools for a key", () => {
  it("lists what the key may use, never the test fixtures of an unrestricted key", async () => {
    const names = toolNames((await rpc("/mcp", "tools/list")).result);
    expect(names).toContain("echo");
    expect(names.some((name) => name.startsWith("test_"))).toBe(false);
    const { key: whitelisted } = await createKey({ name: "mcp-whitelist", role: "agent", policy: { mode: "whitelist", patterns: ["echo", "current_*"] } });
    expect(toolNames((await rpc("/mcp", "tools/list", {}, { token: whitelisted })).result)).toEqual(["current_time", "echo"]);
  });

  it("refuses a call the key's policy denies as an isError result naming the rule", async () => {
    const { key } = await createKey({ name: "mcp-deny-echo", role: "agent", policy: { mode: "deny", patterns: ["echo"] } });
    const answer = await rpc("/mcp", "tools/call", { name: "echo", arguments: { text: "x" } }, { token: key });
    expect(answer.result).toMatchObject({ isError: true });
    expect(JSON.stringify(answer.result)).toContain("pattern 'echo'");
  });

  it("answers an unknown tool and invalid arguments as JSON-RPC invalid params", async () => {
    expect((await rpc("/mcp", "tools/call", { name: "ecko", arguments: {} })).error).toMatchObject({ code: -32602, data: { error_code: "UNKNOWN_TOOL" } });
    const invalid = await rpc("/mcp", "tools/call", { name: "echo", arguments: { text: 5 } });
    expect(invalid.error).toMatchObject({ code: -32602, data: { error_code: "INVALID_ARGUMENTS", issues: [{ path: "text", expected: "string" }] } });
    expect((await rpc("/mcp", "tools/call", { arguments: {} })).error).toMatchObject({ code: -32602 });
  });

  it("leaves one audit record per MCP call, under the calling key", async () => {
    const { key } = await createKey({ name: "mcp-audited", role: "agent", toolsets: ["core"] });
    const id = `audit-${crypto.randomUUID()}`;
    const response = await mcpPost(
      "/mcp",
      { jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "audited" } } },
      { token: key },
    );
    expect(response.status).toBe(200);
    const rows = await waitForAuditRows("tool_call_id = ?", [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tool: "echo", status: "ok", policy_decision: "allow" });
    expect(rows[0]?.key_id).not.toBe("admin-token");
  });
});

describe("/mcp/{toolset}", () => {
  it("serves one toolset as its own server", async () => {
    const init = await rpc("/mcp/core", "initialize", { protocolVersion: "2025-11-25" });
    expect(init.result?.serverInfo).toMatchObject({ name: "toolgate/core" });
    expect(toolNames((await rpc("/mcp/core", "tools/list")).result)).toEqual(["current_time", "echo", "generate_lines"]);
    const outside = await rpc("/mcp/core", "tools/call", { name: "read_result", arguments: { handle: "x" } });
    expect(outside.result).toMatchObject({ isError: true });
    expect(JSON.stringify(outside.result)).toContain("not in toolset 'core'");
  });

  it("answers an unknown toolset with 404", async () => {
    const response = await mcpPost("/mcp/no-such-toolset", ping(1));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("Unknown toolset: no-such-toolset") } });
  });

  it("still lists nothing a key may not use", async () => {
    const { key } = await createKey({ name: "mcp-core-only", role: "agent", toolsets: ["core"] });
    expect(toolNames((await rpc("/mcp/research", "tools/list", {}, { token: key })).result)).toEqual(["current_time", "echo", "generate_lines"]);
  });
});

describe("notifications during a call", () => {
  it("streams a tool's log messages before its result", async () => {
    const { key } = await createKey({ name: "mcp-logs", role: "agent", toolsets: ["conformance"] });
    const response = await mcpPost(
      "/mcp/conformance",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test_tool_with_logging", arguments: {} } },
      { token: key },
    );
    const messages = await sseMessages(response);
    expect(messages.map((message) => (message.params as { data?: unknown } | undefined)?.data ?? message.id)).toEqual([
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
      1,
    ]);
    expect(messages[0]).toMatchObject({ method: "notifications/message", params: { level: "info" } });
  });

  it("answers in plain JSON, dropping notifications, when the client does not accept a stream", async () => {
    const { key } = await createKey({ name: "mcp-no-sse", role: "agent", toolsets: ["conformance"] });
    const body = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "t" } } };
    const response = await mcpPost("/mcp", body, { token: key, headers: { accept: "application/json" } });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "Progress test completed." }] } });
  });
});

describe("requests to the client during a call", () => {
  it("asks on the call's stream and takes the answer from a separate POST of the same key", async () => {
    const { key } = await createKey({ name: "mcp-sampling", role: "agent", toolsets: ["conformance"] });
    const response = await mcpPost(
      "/mcp",
      { jsonrpc: "2.0", id: "call", method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "Say hi" } } },
      { token: key },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader?.read())?.value ?? "";
    const asked = JSON.parse(text.slice(text.indexOf("data: ") + 6, text.indexOf("\n\n"))) as {
      id: string;
      method: string;
      params: { messages: { content: { text: string } }[] };
    };
    expect(asked).toMatchObject({ method: "sampling/createMessage", params: { messages: [{ content: { text: "Say hi" } }] } });

    const answered = await mcpPost(
      "/mcp",
      { jsonrpc: "2.0", id: asked.id, result: { role: "assistant", content: { type: "text", text: "hi!" }, model: "m" } },
      { token: key },
    );
    expect(answered.status).toBe(202);
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      text += chunk.value;
    }
    expect(text).toContain('{"jsonrpc":"2.0","id":"call","result":{"content":[{"type":"text","text":"LLM response: hi!"}]}}');
  });

  it("fails a call that needs to ask when the client takes no stream", async () => {
    const { key } = await createKey({ name: "mcp-sampling-json", role: "agent", toolsets: ["conformance"] });
    const response = await mcpPost(
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "x" } } },
      { token: key, headers: { accept: "application/json" } },
    );
    expect(await response.json()).toMatchObject({ result: { isError: true, content: [{ text: expect.stringContaining("accepts text/event-stream") }] } });
  });
});

describe("stored results as resources", () => {
  it("reads a truncated result's full text by its link, for keys that may use the tool", async () => {
    const call = await rpc("/mcp", "tools/call", { name: "generate_lines", arguments: { count: 3000 } }, { headers: { "mcp-protocol-version": "2025-11-25" } });
    const link = (call.result?.content as { type: string; uri?: string }[]).find((block) => block.type === "resource_link");
    expect(link?.uri).toMatch(/^toolgate:\/\/results\/[0-9a-f-]{36}$/);
    const read = await rpc("/mcp", "resources/read", { uri: link?.uri });
    const [contents] = read.result?.contents as { text: string; mimeType: string }[];
    expect(contents?.text.split("\n")).toHaveLength(3000);
    expect(contents?.mimeType).toBe("text/plain");

    const { key: other } = await createKey({ name: "mcp-no-core", role: "agent", toolsets: ["results"] });
    expect((await rpc("/mcp", "resources/read", { uri: link?.uri }, { token: other })).error).toMatchObject({ code: -32002 });
    expect((await rpc("/mcp/web", "resources/read", { uri: link?.uri })).error).toMatchObject({ code: -32002 });
  });

  it("offers the template but lists no stored results, since handles are not indexed by key", async () => {
    // The one listed resource is the key's memory (test/memory/memory-routes.test.ts).
    expect((await rpc("/mcp", "resources/list")).result).toEqual({ resources: [expect.objectContaining({ uri: "toolgate://memory" })] });
    expect((await rpc("/mcp", "resources/templates/list")).result).toMatchObject({ resourceTemplates: [{ uriTemplate: "toolgate://results/{handle}" }] });
    expect((await rpc("/mcp", "resources/read", { uri: "toolgate://results/not-a-handle" })).error).toMatchObject({ code: -32002 });
  });
});
