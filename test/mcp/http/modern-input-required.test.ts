/**
 * `input_required` in the modern era (MCP 2026-07-28): a call waiting for a person's approval
 * and a tool's own questions, driven by the official v2 client's multi-round-trip driver (which
 * dispatches the embedded requests to its handlers and retries with `inputResponses` and the
 * echoed `requestState`), and the state's refusals on hand-made retries.
 */

import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MAX_STATE_CHARS } from "../../../src/mcp/server/request-state.ts";
import { defineTool, registry } from "../../../src/registry/registry.ts";
import { registerApprovalTools, runs } from "../../approvals/support.ts";
import { api } from "../../support/api.ts";
import { createKey } from "../../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { MCP_BASE, mcpPost } from "../helpers.ts";

const MODERN = "2026-07-28";
const TOOL = "mir_write";
const URL_ELICITATION = { elicitation: { url: {} } };

let deregister: () => void;
beforeAll(() => {
  deregister = registerApprovalTools("mir");
});
afterAll(() => deregister());

function modernClient(capabilities: Record<string, unknown>): Client {
  return new Client({ name: "input-required-test", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
}

async function connect(client: Client, path: string, token = TEST_ADMIN_TOKEN): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${MCP_BASE}${path}`), {
    fetch: (input, init) => exports.default.fetch(input, init),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Decides an approval through the approvals API, as a person would; the D1 index that finds its session may lag one write. */
function decide(id: string, decision: "approve" | "deny"): Promise<void> {
  return vi.waitFor(
    async () => {
      const response = await api(`/v1/approvals/${id}`, { body: { decision, scope: "once" } });
      if (response.status !== 200) throw new Error(`deciding ${id}: ${response.status} ${await response.text()}`);
    },
    { timeout: 10_000, interval: 50 },
  );
}

type RpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

interface CallOptions {
  token?: string;
  capabilities?: Record<string, unknown>;
  path?: string;
  id?: string | number;
}

/** A hand-made modern tools/call, the way the v2 client sends one. */
async function modernCall(
  params: Record<string, unknown>,
  { token = TEST_ADMIN_TOKEN, capabilities = URL_ELICITATION, path = "/mcp", id = 1 }: CallOptions = {},
): Promise<RpcAnswer> {
  const response = await mcpPost(
    path,
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities } },
    },
    { token, headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": String(params.name) } },
  );
  expect(response.status).toBe(200);
  return (await response.json()) as RpcAnswer;
}

const approvalIdOf = (message: string): string => /approval ([0-9a-f-]{36})/.exec(message)?.[1] ?? "";

describe("a call waiting for approval, in the modern era", () => {
  it("the v2 client learns the approval and its page, a person approves, and the outcome reaches the client; the call ran once", async () => {
    const client = modernClient(URL_ELICITATION);
    const asked: { mode?: string; url?: string; message?: string }[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url?: string; message: string };
      asked.push(params);
      await decide(approvalIdOf(params.message), "approve");
      return { action: "accept" };
    });
    await connect(client, "/mcp");
    const result = await client.callTool({ name: TOOL, arguments: { note: "mir-approved" } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "url", url: expect.stringMatching(/^http:\/\/localhost\/approvals\/[0-9a-f-]{36}$/) });
    expect(asked[0]?.message).toContain("needs a person's approval");
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain("mir-approved");
    expect(runs.get("mir-approved")).toBe(1);
    await client.close();
  });

  it("a retry held while pending gets the outcome once decided; replaying the state never runs the call again", async () => {
    const first = await modernCall({ name: TOOL, arguments: { note: "mir-held" } });
    expect(first.result).toMatchObject({ resultType: "input_required", requestState: expect.any(String) });
    const [key, request] = Object.entries(first.result?.inputRequests as Record<string, { params: { message: string } }>)[0] ?? [];
    const approvalId = approvalIdOf(request?.params.message ?? "");
    const retryParams = {
      name: TOOL,
      arguments: { note: "mir-held" },
      inputResponses: { [key ?? ""]: { action: "accept" } },
      requestState: first.result?.requestState,
    };
    const retry = modernCall(retryParams);
    await decide(approvalId, "approve");
    const settled = await retry;
    expect(settled.result).toMatchObject({ resultType: "complete" });
    expect(JSON.stringify(settled.result?.content)).toContain("mir-held");
    const again = await modernCall(retryParams);
    expect(again.result).toEqual(settled.result);
    expect(runs.get("mir-held")).toBe(1);
  });

  it("a denied call's retry gets the denial as an error result, and the tool never runs", async () => {
    const first = await modernCall({ name: TOOL, arguments: { note: "mir-denied" } });
    const request = Object.values(first.result?.inputRequests as Record<string, { params: { message: string } }>)[0];
    await decide(approvalIdOf(request?.params.message ?? ""), "deny");
    const retry = await modernCall({ name: TOOL, arguments: { note: "mir-denied" }, requestState: first.result?.requestState });
    expect(retry.result).toMatchObject({ resultType: "complete", isError: true });
    expect(JSON.stringify(retry.result?.content)).toContain("APPROVAL_DENIED");
    expect(runs.get("mir-denied")).toBeUndefined();
  });

  it("refuses a changed, misapplied or other key's requestState, so a retry cannot skip or swap the approval", async () => {
    const first = await modernCall({ name: TOOL, arguments: { note: "mir-tamper" } });
    const state = String(first.result?.requestState);
    const [body = "", mac = ""] = state.split(".");
    const forged = `${body.slice(0, -2)}${body.at(-2) === "A" ? "B" : "A"}${body.at(-1)}.${mac}`;
    const other = await createKey({ name: "mir-other", role: "agent", toolsets: ["mir-set"] });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: TOOL, arguments: { note: "mir-tamper" }, requestState: forged }, TEST_ADMIN_TOKEN, "signature does not match"],
      [{ name: TOOL, arguments: { note: "mir-tamper" }, requestState: "not-a-state" }, TEST_ADMIN_TOKEN, "not a requestState this server issued"],
      [{ name: TOOL, arguments: { note: "mir-swapped" }, requestState: state }, TEST_ADMIN_TOKEN, "another set of arguments"],
      [{ name: "mir_plain", arguments: { note: "mir-tamper" }, requestState: state }, TEST_ADMIN_TOKEN, "another tool"],
      [{ name: TOOL, arguments: { note: "mir-tamper" }, requestState: state }, other.key, "another API key"],
    ];
    for (const [params, token, says] of cases) {
      const answer = await modernCall(params, { token });
      expect(answer.error).toMatchObject({ code: -32602, message: expect.stringContaining(says) });
    }
    expect(runs.get("mir-swapped")).toBeUndefined();
  });

  it("answers a client that cannot open a URL as the 2025 lanes do: a pending-approval text", async () => {
    const answer = await modernCall({ name: TOOL, arguments: { note: "mir-no-url" } }, { capabilities: {} });
    expect(answer.result).toMatchObject({ resultType: "complete", isError: true });
    expect(JSON.stringify(answer.result?.content)).toContain("needs human approval");
  });
});

describe("a tool's own questions, in the modern era", () => {
  // The conformance fixtures answer only to a key whose toolsets name theirs.
  let fixtures = "";
  beforeAll(async () => {
    fixtures = (await createKey({ name: "mir-fixtures", role: "agent", toolsets: ["conformance"] })).key;
  });
  it("an elicitation is answered through input_required by the v2 client's handler", async () => {
    const client = modernClient({ elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async (request) => {
      expect((request.params as { message: string }).message).toBe("Who are you?");
      return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
    });
    await connect(client, "/mcp/conformance", fixtures);
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain('action=accept, content={\\"username\\":\\"ada\\",\\"email\\":\\"ada@example.com\\"}');
    await client.close();
  });

  it("a sampling request is answered the same way", async () => {
    const client = modernClient({ sampling: {} });
    client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "Bonjour" }, model: "test-model" }));
    await connect(client, "/mcp/conformance", fixtures);
    const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "Say hello in French." } });
    expect(JSON.stringify(result.content)).toContain("LLM response: Bonjour");
    await client.close();
  });

  it("a leg that waits for an answer is audited as such and does not count against the tool", async () => {
    const id = `mir-question-${crypto.randomUUID()}`;
    const ask = (message: string) =>
      modernCall({ name: "test_elicitation", arguments: { message } }, { token: fixtures, capabilities: { elicitation: {} }, path: "/mcp/conformance", id });
    const body = await ask("Audited?");
    expect(body.result?.resultType).toBe("input_required");
    expect(body.result?.inputRequests).toEqual({ q0: { method: "elicitation/create", params: expect.objectContaining({ message: "Audited?" }) } });
    const [row] = await waitForAuditRows("tool_call_id = ?", [id]);
    expect(row).toMatchObject({ tool: "test_elicitation", status: "error", error_code: "EXECUTION_FAILED" });
    expect(String(row?.error_message)).toContain("waiting for the client's answer to elicitation/create");
    // More unanswered legs in a row than the breaker's threshold (5 by default) leave the tool callable.
    for (let leg = 0; leg < 7; leg++) {
      expect((await ask(`leg ${leg}`)).result?.resultType).toBe("input_required");
    }
    const client = modernClient({ elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    await connect(client, "/mcp/conformance", fixtures);
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "after the legs" } });
    expect(JSON.stringify(result.content)).toContain("action=decline");
    await client.close();
  });

  it("ends a call whose answers outgrow the requestState with a structured error, never a state its retry would refuse", async () => {
    const tool = defineTool({
      name: "mir_ask_twice",
      toolset: "mir-set",
      schema: z.object({}),
      handler: async (_args, ctx) => {
        const first = await ctx.client.request?.("elicitation/create", { message: "first?", requestedSchema: { type: "object", properties: {} } });
        const second = await ctx.client.request?.("elicitation/create", { message: "second?", requestedSchema: { type: "object", properties: {} } });
        return { first, second };
      },
    });
    expect(registry.register(tool)).toMatchObject({ ok: true });
    try {
      const ask = (extra: Record<string, unknown> = {}, id?: string) =>
        modernCall({ name: "mir_ask_twice", arguments: {}, ...extra }, { capabilities: { elicitation: {} }, ...(id === undefined ? {} : { id }) });
      const first = await ask();
      expect(first.result?.resultType).toBe("input_required");
      const state = String(first.result?.requestState);
      // An answer about as long as the bound: carried to the second round, it cannot fit.
      const long = { action: "accept", content: { text: "x".repeat(MAX_STATE_CHARS) } };
      const id = `mir-too-large-${crypto.randomUUID()}`;
      const second = await ask({ requestState: state, inputResponses: { q0: long } }, id);
      expect(second.result).toMatchObject({ isError: true });
      expect(second.result?.requestState).toBeUndefined();
      const text = JSON.stringify(second.result?.content);
      expect(text).toContain(`past the ${MAX_STATE_CHARS} a retry may carry`);
      expect(text).toContain("without requestState");
      // Audited as what the client got, not as a leg waiting for an answer.
      const [row] = await waitForAuditRows("tool_call_id = ?", [id]);
      expect(row).toMatchObject({ tool: "mir_ask_twice", status: "error", error_code: "EXECUTION_FAILED" });
      expect(String(row?.error_message)).toContain(`past the ${MAX_STATE_CHARS} a retry may carry`);
      // A short answer goes on to the second question, as before.
      const short = await ask({ requestState: state, inputResponses: { q0: { action: "accept", content: { text: "ok" } } } });
      expect(short.result?.resultType).toBe("input_required");
      expect(Object.keys(short.result?.inputRequests ?? {})).toEqual(["q1"]);
    } finally {
      registry.deregister("mir_ask_twice");
    }
  });

  it("a client that declared neither capability gets the tool's own failure, as over /v1", async () => {
    const body = await modernCall({ name: "test_elicitation", arguments: { message: "x" } }, { token: fixtures, capabilities: {}, path: "/mcp/conformance" });
    expect(body.result).toMatchObject({ resultType: "complete", isError: true });
    expect(JSON.stringify(body.result?.content)).toContain("cannot ask its client");
  });
});
