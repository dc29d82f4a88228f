/**
 * resources/subscribe and resources/unsubscribe in an MCP session: a memory change made by a
 * tools/call of the session reaches a subscriber on that call's stream, a subscription outlives
 * the request that made it, and one is refused without a session or for what cannot be watched.
 */
import { describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { mcpPost, rpc, sseMessages } from "../helpers.ts";

let nextId = 1;

async function initialize(token: string): Promise<string> {
  const response = await mcpPost(
    "/mcp",
    {
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    { token },
  );
  const body = (await response.json()) as { result: { capabilities: { resources: unknown } } };
  expect(body.result.capabilities.resources).toEqual({ subscribe: true });
  return response.headers.get("mcp-session-id") ?? "";
}

/** A memory tool call in the session: the notifications its answer carried before the response. */
async function remember(token: string, session: string, content: string): Promise<unknown[]> {
  const response = await mcpPost(
    "/mcp",
    { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: "memory", arguments: { target: "memory", action: "add", content } } },
    { token, headers: { "mcp-session-id": session } },
  );
  expect(response.status).toBe(200);
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    expect(((await response.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
    return [];
  }
  const messages = await sseMessages(response);
  expect((messages.at(-1) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
  return messages.slice(0, -1);
}

const memoryUpdated = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "toolgate://memory" } };

describe("resource subscriptions", () => {
  it("a session subscribed to toolgate://memory is told of a memory change, until it unsubscribes", async () => {
    const { key } = await createKey({ name: "subs-memory", role: "agent" });
    const session = await initialize(key);
    const init = { token: key, headers: { "mcp-session-id": session } };

    expect(await remember(key, session, "before subscribing")).toEqual([]);
    expect(await rpc("/mcp", "resources/subscribe", { uri: "toolgate://memory" }, init)).toMatchObject({ result: {} });
    // The subscription was made by another request: it lives in the session, not in a request.
    expect(await remember(key, session, "while subscribed")).toEqual([memoryUpdated]);
    expect(await rpc("/mcp", "resources/unsubscribe", { uri: "toolgate://memory" }, init)).toMatchObject({ result: {} });
    expect(await remember(key, session, "after unsubscribing")).toEqual([]);
  });

  it("another session of the same key is not told", async () => {
    const { key } = await createKey({ name: "subs-other-session", role: "agent" });
    const watching = await initialize(key);
    const writing = await initialize(key);
    await rpc("/mcp", "resources/subscribe", { uri: "toolgate://memory" }, { token: key, headers: { "mcp-session-id": watching } });
    expect(await remember(key, writing, "from the other session")).toEqual([]);
  });

  it("refuses a subscription without a session, and to a resource the key cannot read", async () => {
    const { key } = await createKey({ name: "subs-refusals", role: "agent" });
    const outside = await rpc("/mcp", "resources/subscribe", { uri: "toolgate://memory" }, { token: key });
    expect(outside.error?.code).toBe(-32600);
    expect(outside.error?.message).toMatch(/needs an MCP session/);

    const session = await initialize(key);
    const unknown = await rpc("/mcp", "resources/subscribe", { uri: "test://watched-resource" }, { token: key, headers: { "mcp-session-id": session } });
    expect(unknown.error).toMatchObject({ code: -32002, data: { uri: "test://watched-resource" } });
    const missing = await rpc("/mcp", "resources/subscribe", {}, { token: key, headers: { "mcp-session-id": session } });
    expect(missing.error?.code).toBe(-32602);
  });
});
