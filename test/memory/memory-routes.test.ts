/**
 * A key's memory outside the tool: GET /v1/memory (its own; an admin's `key_id`) and the MCP
 * resource toolgate://memory, each showing what the memory tool wrote through /v1/tool-calls.
 */
import { describe, expect, it } from "vitest";
import { as, callTools, type Key, only } from "../approvals/support.ts";
import { rpc } from "../mcp/helpers.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

async function remember(key: Key, target: "memory" | "user", content: string): Promise<void> {
  const result = only(await callTools(key, "mem-routes", [openaiCall("r1", "memory", { target, action: "add", content })]));
  expect(result.status).toBe("ok");
}

const emptyStore = (limit: number) => ({ entries: [], entry_count: 0, chars: 0, limit });

describe("GET /v1/memory", () => {
  it("shows the calling key's two stores with their budgets", async () => {
    const key = await createKey({ name: "memr-own", role: "agent" });
    await remember(key, "user", "Prefers short answers.");
    const response = await api("/v1/memory", { headers: as(key) });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      key_id: key.id,
      memory: emptyStore(2200),
      user: { entries: ["Prefers short answers."], entry_count: 1, chars: 22, limit: 1375 },
    });
  });

  it("lets an admin read another key's memory, and refuses anyone else with 403", async () => {
    const key = await createKey({ name: "memr-owner", role: "agent" });
    const snoop = await createKey({ name: "memr-snoop", role: "approver" });
    await remember(key, "memory", "Staging is at staging.example.");
    const byAdmin = await json(await api(`/v1/memory?key_id=${key.id}`));
    expect(byAdmin).toMatchObject({ key_id: key.id, memory: { entries: ["Staging is at staging.example."] } });

    const refused = await api(`/v1/memory?key_id=${key.id}`, { headers: as(snoop) });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error_code: "FORBIDDEN" });
    // Naming itself is no escalation.
    expect((await api(`/v1/memory?key_id=${snoop.id}`, { headers: as(snoop) })).status).toBe(200);
  });

  it("answers an unknown key id with 404 and a bad one with 400, in the house envelope", async () => {
    const unknown = await api("/v1/memory?key_id=no-such-key");
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error_code: "UNKNOWN_API_KEY", error: "No API key has the id 'no-such-key'." });
    const tooLong = await api(`/v1/memory?key_id=${"k".repeat(300)}`);
    expect(tooLong.status).toBe(400);
    expect(await json(tooLong)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [expect.objectContaining({ path: "key_id" })] });
    expect((await api("/v1/memory", { headers: { authorization: "Bearer tg_nope" } })).status).toBe(401);
  });

  it("is documented in /openapi.json", async () => {
    const doc = await json<{ paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>(await api("/openapi.json"));
    expect(Object.keys(doc.paths["/v1/memory"]?.get?.responses ?? {}).sort()).toEqual(["200", "400", "401", "403", "404", "500"]);
  });
});

describe("the MCP resource toolgate://memory", () => {
  it("is listed and read for a key that may use the memory tool, with what the tool wrote", async () => {
    const key = await createKey({ name: "memr-mcp", role: "agent", toolsets: ["memory"] });
    await remember(key, "memory", "CI runs on every push.");
    const listed = await rpc("/mcp", "resources/list", {}, { token: key.key });
    expect(listed.result).toEqual({ resources: [expect.objectContaining({ uri: "toolgate://memory", name: "memory", mimeType: "application/json" })] });
    const read = await rpc("/mcp", "resources/read", { uri: "toolgate://memory" }, { token: key.key });
    const [contents] = read.result?.contents as { uri: string; mimeType: string; text: string }[];
    expect(contents).toMatchObject({ uri: "toolgate://memory", mimeType: "application/json" });
    expect(JSON.parse(contents?.text ?? "")).toEqual({
      key_id: key.id,
      memory: { entries: ["CI runs on every push."], entry_count: 1, chars: 22, limit: 2200 },
      user: emptyStore(1375),
    });
    expect((await rpc("/mcp/memory", "resources/list", {}, { token: key.key })).result).toMatchObject({ resources: [{ uri: "toolgate://memory" }] });
  });

  it("is neither listed nor readable where the memory tool is not offered", async () => {
    const key = await createKey({ name: "memr-no-tool", role: "agent", toolsets: ["core"] });
    expect((await rpc("/mcp", "resources/list", {}, { token: key.key })).result).toEqual({ resources: [] });
    expect((await rpc("/mcp", "resources/read", { uri: "toolgate://memory" }, { token: key.key })).error).toMatchObject({ code: -32002 });
    // The admin token may use every tool, but a toolset's virtual server without memory offers none.
    expect((await rpc("/mcp/core", "resources/list")).result).toEqual({ resources: [] });
    expect((await rpc("/mcp/core", "resources/read", { uri: "toolgate://memory" })).error).toMatchObject({ code: -32002 });
  });
});
