/**
 * A remote MCP server's prompts and resources over /mcp: registered with its tools (prompts and
 * resource names with the server prefix), reached by the key's policy globs like its tools,
 * forwarded to the server with one audit record per get or read, and gone with the server.
 * The server is the scripted fake behind the outbound stand-in (test/support/fake-mcp-server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { addServer, fedApi, fedEnv } from "./helpers.ts";

const SERVER = "fakecontent";
const PROMPT = `mcp__${SERVER}__review`;
// fedApi's host, past the DNS-rebinding check.
const mcpEnv = { ...fedEnv, MCP_ALLOWED_HOSTS: "toolgate.test" } as Env;

let nextId = 1;
async function rpc(
  method: string,
  params: Record<string, unknown>,
  token?: string,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
  const response = await fedApi("/mcp", { body: { jsonrpc: "2.0", id: nextId++, method, params }, headers, env: mcpEnv });
  expect(response.status).toBe(200);
  return (await response.json()) as { result?: Record<string, unknown> };
}

beforeAll(async () => {
  await addServer({ name: SERVER, url: "http://mcp.upstream.test/content" });
});
afterAll(async () => {
  await fedApi(`/v1/mcp-servers/${SERVER}`, { method: "DELETE" });
});

describe("a remote server's prompts and resources", () => {
  it("are listed under the server's prefix and forwarded to it", async () => {
    const prompts = (await rpc("prompts/list", {})).result?.prompts as { name: string; arguments?: unknown[] }[];
    expect(prompts).toContainEqual({ name: PROMPT, description: "Asks for a review of a topic", arguments: [{ name: "topic", required: true }] });
    expect((await rpc("prompts/get", { name: PROMPT, arguments: { topic: "the plan" } })).result).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Review the plan" } }],
    });
    expect((await rpc("prompts/get", { name: PROMPT, arguments: {} })).error).toMatchObject({ code: -32602, message: expect.stringContaining("'topic'") });

    const resources = (await rpc("resources/list", {})).result?.resources;
    expect(resources).toContainEqual({ uri: "fake://notes/today", name: `mcp__${SERVER}__today`, mimeType: "text/plain" });
    const templates = (await rpc("resources/templates/list", {})).result?.resourceTemplates as { uriTemplate: string; name: string }[];
    expect(templates.find((template) => template.uriTemplate === "fake://notes/{day}")?.name).toBe(`mcp__${SERVER}__by-day`);
    expect((await rpc("resources/read", { uri: "fake://notes/today" })).result).toEqual({
      contents: [{ uri: "fake://notes/today", mimeType: "text/plain", text: "notes of fake://notes/today" }],
    });
    expect((await rpc("resources/read", { uri: "fake://notes/2026-12-01" })).result).toEqual({
      contents: [{ uri: "fake://notes/2026-12-01", mimeType: "text/plain", text: "notes of fake://notes/2026-12-01" }],
    });
  });

  it("leave an audit record per forwarded get and read", async () => {
    await rpc("prompts/get", { name: PROMPT, arguments: { topic: "audit" } });
    const rows = await waitForAuditRows("tool = ? AND arguments LIKE ?", [PROMPT, "%audit%"], 1);
    expect(rows[0]).toMatchObject({ toolset: `mcp-${SERVER}`, status: "ok", key_id: "admin-token" });
    await rpc("resources/read", { uri: "fake://notes/audited" });
    const reads = await waitForAuditRows("tool = ? AND arguments LIKE ?", ["resources/read", "%fake://notes/audited%"], 1);
    expect(reads[0]).toMatchObject({ toolset: `mcp-${SERVER}`, status: "ok" });
  });

  it("are reached by the key's toolsets and policy globs as the server's tools are", async () => {
    const denied = await createKey({ name: "remote-content-denied", role: "agent", policy: { mode: "deny", patterns: [`mcp__${SERVER}__*`] } });
    const named = await createKey({ name: "remote-content-named", role: "agent", toolsets: [`mcp-${SERVER}`] });
    expect(JSON.stringify((await rpc("prompts/list", {}, denied.key)).result)).not.toContain(PROMPT);
    expect((await rpc("resources/read", { uri: "fake://notes/today" }, denied.key)).error).toMatchObject({ code: -32002 });
    expect(JSON.stringify((await rpc("prompts/list", {}, named.key)).result)).toContain(PROMPT);
  });

  it("leave with the server", async () => {
    expect((await fedApi(`/v1/mcp-servers/${SERVER}`, { method: "DELETE" })).status).toBe(204);
    expect(JSON.stringify((await rpc("prompts/list", {})).result)).not.toContain(PROMPT);
    expect((await rpc("resources/read", { uri: "fake://notes/today" })).error).toMatchObject({ code: -32002 });
  });
});
