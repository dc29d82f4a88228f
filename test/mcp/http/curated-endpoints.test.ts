/**
 * Curated endpoints: a custom toolset with aliases, created through POST /v1/toolsets, served at
 * /mcp/{toolset} to the official v2 client (modern era and 2025 handshake). The client sees only
 * the aliases; a call by alias runs the real tool, is decided by policy on the real name, and is
 * audited with both names; colliding aliases are refused when the toolset is registered.
 */

import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { api } from "../../support/api.ts";
import { createKey } from "../../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { MCP_BASE, rpc } from "../helpers.ts";

const SAY = "Repeat the customer's words back to them, unchanged.";

/** A fresh curated toolset: `echo` presented as `say`, `current_time` keeping its name with a new description. */
async function curatedToolset(): Promise<string> {
  const name = `curated-${crypto.randomUUID().slice(0, 8)}`;
  const response = await api("/v1/toolsets", {
    body: {
      name,
      description: "Support desk",
      tools: ["echo", "current_time"],
      aliases: { echo: { name: "say", description: SAY }, current_time: { description: "What time it is for the customer." } },
    },
  });
  expect(response.status).toBe(201);
  expect(await response.json()).toMatchObject({ aliases: { echo: { name: "say" } } });
  return name;
}

function connect(path: string, mode: "legacy" | { pin: string }, token = TEST_ADMIN_TOKEN): Promise<Client> {
  const client = new Client({ name: "curated-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(new URL(`${MCP_BASE}${path}`), {
    fetch: (input, init) => exports.default.fetch(input, init),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  return client.connect(transport).then(() => client);
}

describe("a curated toolset at /mcp/{toolset}", () => {
  for (const mode of [{ pin: "2026-07-28" }, "legacy"] as const) {
    const era = mode === "legacy" ? "2025-11-25" : "2026-07-28";
    it(`lists aliases with their descriptions and runs the real tool by alias (${era})`, async () => {
      const toolset = await curatedToolset();
      const client = await connect(`/mcp/${toolset}`, mode);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["current_time", "say"]);
      expect(tools.find((tool) => tool.name === "say")?.description).toBe(SAY);
      expect(tools.find((tool) => tool.name === "current_time")?.description).toBe("What time it is for the customer.");
      const result = await client.callTool({ name: "say", arguments: { text: "curated hello" } });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toContain("curated hello");
      await client.close();
    });
  }

  it("refuses the renamed tool's own name there, naming the alias", async () => {
    const toolset = await curatedToolset();
    const answer = await rpc(`/mcp/${toolset}`, "tools/call", { name: "echo", arguments: { text: "x" } });
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining("presents it as 'say'") });
    // A tool described anew but not renamed keeps answering to its name.
    const time = await rpc(`/mcp/${toolset}`, "tools/call", { name: "current_time", arguments: {} });
    expect(time.result?.isError).not.toBe(true);
  });

  it("leaves the aliases at the curated door: /mcp and the toolset's /v1 views show real names", async () => {
    const toolset = await curatedToolset();
    const list = await rpc("/mcp", "tools/list");
    const names = (list.result?.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain("echo");
    expect(names).not.toContain("say");
    const info = (await (await api(`/v1/toolsets/${toolset}`)).json()) as { resolved_tools: string[] };
    expect(info.resolved_tools).toEqual(["current_time", "echo"]);
  });

  it("audits a call by alias with both names", async () => {
    const toolset = await curatedToolset();
    const id = `curated-${crypto.randomUUID()}`;
    const response = await exports.default.fetch(`${MCP_BASE}/mcp/${toolset}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "say", arguments: { text: "audit me" } } }),
    });
    expect(response.status).toBe(200);
    const [row] = await waitForAuditRows("tool_call_id = ?", [id]);
    expect(row).toMatchObject({ tool: "echo", called_as: "say", status: "ok" });
    const listed = (await (await api(`/v1/audit?tool=echo&limit=200`)).json()) as { records: { tool_call_id: string; tool: string; called_as?: string }[] };
    expect(listed.records.find((record) => record.tool_call_id === id)).toMatchObject({ tool: "echo", called_as: "say" });
  });

  it("resolves the alias before policy: a key denied the real tool is denied its alias", async () => {
    const toolset = await curatedToolset();
    const { key } = await createKey({ name: "curated-denied", role: "agent", policy: { mode: "deny", patterns: ["echo"] } });
    const client = await connect(`/mcp/${toolset}`, { pin: "2026-07-28" }, key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["current_time"]);
    const refused = await rpc(`/mcp/${toolset}`, "tools/call", { name: "say", arguments: { text: "x" } }, { token: key });
    expect(JSON.stringify(refused)).toMatch(/PERMISSION_DENIED|not allowed|denied/i);
    await client.close();
  });
});

describe("registering aliases", () => {
  const create = (aliases: Record<string, unknown>, tools = ["echo", "current_time"]) =>
    api("/v1/toolsets", { body: { name: `aliases-${crypto.randomUUID().slice(0, 8)}`, tools, aliases } });

  it("refuses two aliases with one name with 409", async () => {
    const response = await create({ echo: { name: "tell" }, current_time: { name: "tell" } });
    expect(response.status).toBe(409);
    expect(JSON.stringify(await response.json())).toContain("both presented as 'tell'");
  });

  it("refuses an alias that takes another tool's real name with 409", async () => {
    const response = await create({ echo: { name: "current_time" } });
    expect(response.status).toBe(409);
    expect(JSON.stringify(await response.json())).toContain("already the name of a tool of this toolset");
  });

  it("lets two tools swap names, since neither keeps its own", async () => {
    expect((await create({ echo: { name: "current_time" }, current_time: { name: "echo" } })).status).toBe(201);
  });

  it("refuses an alias of a tool outside the toolset, or a bad name, with 400", async () => {
    const outside = await create({ read_result: { name: "read" } });
    expect(outside.status).toBe(400);
    expect(JSON.stringify(await outside.json())).toContain("not a tool of this toolset");
    expect((await create({ echo: { name: "has space" } })).status).toBe(400);
    expect((await create({ echo: {} })).status).toBe(400);
  });

  it("accepts an alias of a tool the toolset includes", async () => {
    expect((await create({ echo: { name: "repeat" } }, [])).status).toBe(400);
    const response = await api("/v1/toolsets", {
      body: { name: `aliases-${crypto.randomUUID().slice(0, 8)}`, includes: ["core"], aliases: { echo: { name: "repeat" } } },
    });
    expect(response.status).toBe(201);
  });
});
