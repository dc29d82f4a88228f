/**
 * The modern era (MCP 2026-07-28) on /mcp beside the 2025 lanes: the official v2 client
 * (@modelcontextprotocol/client 2.4) reaches the same endpoint once pinned to 2026-07-28 and once
 * in its default 2025-11-25 handshake, and the revision's refusals (a version the server does not
 * speak, a routing header that disagrees with the body, a removed method) come back as the
 * revision defines them. The client runs here in workerd, its fetch the Worker's own.
 */

import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { MCP_BASE, mcpPost } from "../helpers.ts";

const MODERN = "2026-07-28";
const META = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";

function connectClient(mode: "legacy" | { pin: string }): Promise<Client> {
  const client = new Client({ name: "modern-era-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(`${MCP_BASE}/mcp`), {
    fetch: (input, init) => exports.default.fetch(input, init),
    requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
  });
  return client.connect(transport).then(() => client);
}

/** A hand-made modern request: the envelope in `_meta`, and the headers a conforming client sends unless `headers` says otherwise. */
function modernPost(method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, version = MODERN): Promise<Response> {
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return mcpPost(
    "/mcp",
    { jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: { [META]: version, [CAPS]: {} } } },
    { headers: { "mcp-protocol-version": version, "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }), ...headers } },
  );
}

describe("the v2 client against /mcp", () => {
  it("pinned to 2026-07-28: discovers, lists and calls tools with no initialize", async () => {
    const client = await connectClient({ pin: MODERN });
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { text: "hello modern" } });
    expect(JSON.stringify(result.content)).toContain("hello modern");
    await client.close();
  });

  it("in its default 2025 handshake: the same tools over initialize and 2025-11-25", async () => {
    const client = await connectClient("legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { text: "hello 2025" } });
    expect(JSON.stringify(result.content)).toContain("hello 2025");
    await client.close();
  });
});

describe("modern requests on the wire", () => {
  it("server/discover names the modern revision, the capabilities and the server, with a private cache hint", async () => {
    const response = await modernPost("server/discover", {});
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      resultType: "complete",
      supportedVersions: [MODERN],
      capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolgate" } },
      ttlMs: 10_000,
      cacheScope: "private",
    });
  });

  it("a list carries resultType and the key cache's lifetime as its hint; a call carries resultType only", async () => {
    const list = (await (await modernPost("tools/list", {})).json()) as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: "complete", ttlMs: 10_000, cacheScope: "private" });
    const call = (await (await modernPost("tools/call", { name: "echo", arguments: { text: "x" } })).json()) as { result: Record<string, unknown> };
    expect(call.result.resultType).toBe("complete");
    expect(call.result.ttlMs).toBeUndefined();
  });

  it("refuses a version it does not speak with UnsupportedProtocolVersion, listing what it speaks", async () => {
    const response = await modernPost("tools/list", {}, {}, "2099-01-01");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number; data: { supported: string[]; requested: string } } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data).toEqual({ supported: [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"], requested: "2099-01-01" });
  });

  it("refuses routing headers that disagree with the body, or are missing, with HeaderMismatch", async () => {
    const cases: [string, Record<string, unknown>, Record<string, string>, RegExp][] = [
      [
        "tools/call",
        { name: "echo", arguments: { text: "x" } },
        { "mcp-name": "delete_everything" },
        /Mcp-Name header value 'delete_everything' does not match body value 'echo'/,
      ],
      ["tools/call", { name: "echo", arguments: { text: "x" } }, { "mcp-method": "tools/list" }, /Mcp-Method header names tools\/list/],
      ["tools/list", {}, { "mcp-protocol-version": "2025-11-25" }, /MCP-Protocol-Version header names 2025-11-25/],
      ["resources/read", { uri: "toolgate://memory" }, { "mcp-name": "=?base64?not base64?=" }, /invalid =\?base64\?/],
    ];
    for (const [method, params, headers, says] of cases) {
      const response = await modernPost(method, params, headers);
      expect(response.status, method).toBe(400);
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(-32020);
      expect(body.error.message).toMatch(says);
    }
    const missing = await exports.default.fetch(`${MCP_BASE}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        "mcp-protocol-version": MODERN,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [META]: MODERN, [CAPS]: {} } } }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Mcp-Method header is absent/);
  });

  it("accepts a Base64-encoded Mcp-Name that matches", async () => {
    const response = await modernPost("tools/call", { name: "echo", arguments: { text: "b64" } }, { "mcp-name": `=?base64?${btoa("echo")}?=` });
    expect(response.status).toBe(200);
  });

  it("answers a method the revision removed with 404 and Method not found", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
      const response = await modernPost(method, {});
      expect(response.status, method).toBe(404);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32601);
    }
  });

  it("reads a request that names no version as before: 2025-03-26, no resultType", async () => {
    const response = await mcpPost("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result.resultType).toBeUndefined();
    expect(Array.isArray(body.result.tools)).toBe(true);
  });
});
