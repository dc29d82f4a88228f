/**
 * MCP sessions through the Worker's own fetch handler: the signed Mcp-Session-Id `initialize`
 * returns, its refusals (404, so a client initialises again), approvals shared by the requests
 * that carry it, and DELETE ending its grants. Clients that send no id keep the old behaviour.
 */
import { exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueSessionId } from "../../../src/mcp/http/mcp-session-id.ts";
import { registerApprovalTools, runs } from "../../approvals/support.ts";
import { api } from "../../support/api.ts";
import { createKey } from "../../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { MCP_BASE, mcpPost } from "../helpers.ts";

const TOOL = "mcps_write";
let nextId = 1;

async function initialize(token = TEST_ADMIN_TOKEN, path = "/mcp"): Promise<string> {
  const response = await mcpPost(
    path,
    {
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    { token },
  );
  expect(response.status).toBe(200);
  const session = response.headers.get("mcp-session-id");
  expect(session).toMatch(/^[0-9a-f-]{36}\.\d+\.[0-9a-f]{64}$/);
  return session ?? "";
}

/** tools/call in the session (or none): the text of its one content block and whether it is an error. */
async function call(session: string | undefined, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const response = await mcpPost(
    "/mcp",
    { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: TOOL, arguments: args } },
    { headers: session === undefined ? {} : { "mcp-session-id": session } },
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { content: { text: string }[]; isError?: boolean } };
  return { text: body.result.content[0]?.text ?? "", isError: body.result.isError === true };
}

const approvalIdIn = (text: string): string => /approval ([0-9a-f-]{36}) is pending/.exec(text)?.[1] ?? "";
const sessionOf = (token: string) => `mcp-${token.slice(0, 36)}`;

function decide(id: string, session: string, scope: "once" | "session"): Promise<Response> {
  return api(`/v1/approvals/${id}?session_id=${sessionOf(session)}`, { body: { decision: "approve", scope } });
}

let deregister: () => void;
beforeAll(() => {
  deregister = registerApprovalTools("mcps");
});
afterAll(() => deregister());

describe("MCP session ids", () => {
  it("initialize returns a signed session id, and requests with it or without one are served", async () => {
    const session = await initialize();
    expect((await mcpPost("/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, { headers: { "mcp-session-id": session } })).status).toBe(200);
    expect((await mcpPost("/mcp", { jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(200);
    expect(await initialize(TEST_ADMIN_TOKEN, "/mcp/core")).not.toBe(session);
  });

  it("refuses a forged, malformed, expired or other key's session id with 404 and a JSON-RPC error", async () => {
    const session = await initialize();
    const last = session.at(-1) === "0" ? "1" : "0";
    const agent = await createKey({ name: "mcp-session-other", role: "agent" });
    const expired = await issueSessionId(TEST_ADMIN_TOKEN, "admin-token", 60, Date.now() - 3_600_000);
    const cases: [string, string, string][] = [
      [`${session.slice(0, -1)}${last}`, TEST_ADMIN_TOKEN, "is not valid for this API key"],
      ["not-a-session", TEST_ADMIN_TOKEN, "is not one this server issues"],
      [expired, TEST_ADMIN_TOKEN, "has expired"],
      [session, agent.key, "is not valid for this API key"],
    ];
    for (const [sent, token, says] of cases) {
      const response = await mcpPost("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token, headers: { "mcp-session-id": sent } });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { id: null; error: { code: number; message: string; data: { error_code: string } } };
      expect(body).toMatchObject({ id: null, error: { code: -32000, data: { error_code: "UNKNOWN_MCP_SESSION" } } });
      expect(body.error.message).toContain(says);
    }
  });

  it("does not check an id sent with initialize: that request starts a new session", async () => {
    const response = await mcpPost(
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } },
      { headers: { "mcp-session-id": "stale" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).not.toBeNull();
  });
});

describe("approvals in an MCP session", () => {
  it("a re-sent call waits on the same approval, then gets the stored outcome; the call ran once", async () => {
    const session = await initialize();
    const first = await call(session, { note: "mcps-once" });
    expect(first.isError).toBe(true);
    expect(first.text).toContain("call 'mcps_write' again with exactly the same arguments");
    const approvalId = approvalIdIn(first.text);
    expect(approvalIdIn((await call(session, { note: "mcps-once" })).text)).toBe(approvalId);

    expect((await decide(approvalId, session, "once")).status).toBe(200);
    expect(runs.get("mcps-once")).toBe(1);
    for (let i = 0; i < 2; i++) expect(await call(session, { note: "mcps-once" })).toEqual({ text: JSON.stringify({ written: "mcps-once" }), isError: false });
    expect(runs.get("mcps-once")).toBe(1);
    // Approved once, not for the session: other arguments ask again.
    expect(approvalIdIn((await call(session, { note: "mcps-other" })).text)).not.toBe("");
  });

  it("approve for this session lets later calls run, until DELETE ends the session's grants", async () => {
    const session = await initialize();
    const asked = approvalIdIn((await call(session, { note: "mcps-grant" })).text);
    expect((await decide(asked, session, "session")).status).toBe(200);
    expect(await call(session, { note: "mcps-granted" })).toEqual({ text: JSON.stringify({ written: "mcps-granted" }), isError: false });

    const ended = await exports.default.fetch(`${MCP_BASE}/mcp`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "mcp-session-id": session },
    });
    expect(ended.status).toBe(204);
    expect((await call(session, { note: "mcps-after-delete" })).text).toContain("needs human approval");
    expect(runs.get("mcps-after-delete")).toBeUndefined();
  });

  it("records the calls under the MCP session in the audit log", async () => {
    const session = await initialize();
    await call(session, { note: "mcps-audit" });
    const rows = await waitForAuditRows("session_id = ?", [sessionOf(session)], 1);
    expect(rows[0]).toMatchObject({ tool: TOOL, status: "pending_approval" });
  });

  it("without a session id, each call is its own session and asks again, as before", async () => {
    const first = (await call(undefined, { note: "mcps-stateless" })).text;
    const second = (await call(undefined, { note: "mcps-stateless" })).text;
    expect(second).toContain("Do not call 'mcps_write' again");
    expect(approvalIdIn(first)).not.toBe("");
    expect(approvalIdIn(second)).not.toBe(approvalIdIn(first));
  });
});

describe("DELETE and GET /mcp", () => {
  it("DELETE needs a valid session id of the calling key; GET stays 405", async () => {
    const del = (headers: Record<string, string>) =>
      exports.default.fetch(`${MCP_BASE}/mcp`, { method: "DELETE", headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...headers } });
    const missing = await del({});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { data: { error_code: "MCP_SESSION_REQUIRED" } } });
    expect((await del({ "mcp-session-id": "forged" })).status).toBe(404);
    expect((await exports.default.fetch(`${MCP_BASE}/mcp`, { method: "DELETE", headers: { "mcp-session-id": await initialize() } })).status).toBe(401);
    const get = await exports.default.fetch(`${MCP_BASE}/mcp`, {
      method: "GET",
      headers: { accept: "text/event-stream", authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
  });
});
