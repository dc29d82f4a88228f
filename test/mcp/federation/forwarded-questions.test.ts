/**
 * What a federated server asks during a call, forwarded to the client that made it: the real
 * server-everything (2025, questions on its response stream) and the real v2 SDK server (2026-07-28,
 * `input_required`) as upstreams, the official v2 client as the downstream, in both eras. And the
 * structured refusal when the client cannot be asked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING_PORT } from "../../support/test-env.ts";
import { V2_MCP_HOST } from "../../support/v2-mcp-server.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { downstream, type ElicitAnswer, MODERN, textOf } from "./downstream-client.ts";
import { addServer, fedEnv, runCall } from "./helpers.ts";

const EVERYTHING_ASKS = "mcp__asks__trigger-elicitation-request";
const V2_ASKS = "mcp__v2__confirm_order";

const asked: Record<string, unknown>[] = [];
const acceptAda = (params: Record<string, unknown>): ElicitAnswer => {
  asked.push(params);
  return { action: "accept", content: { name: "Ada", check: true } };
};
const confirm = (params: Record<string, unknown>): ElicitAnswer => {
  asked.push(params);
  return { action: "accept", content: { confirm: true } };
};

beforeAll(async () => {
  const everything = await addServer({ name: "asks", url: `http://127.0.0.1:${EVERYTHING_PORT}/mcp`, include: ["trigger-elicitation-request"] });
  // server-everything offers this tool only to clients that declared elicitation: toolgate does now.
  expect(everything).toMatchObject({ last_error: null, tools: [{ name: EVERYTHING_ASKS }] });
  const v2 = await addServer({ name: "v2", url: `http://${V2_MCP_HOST}/mcp` });
  expect(v2).toMatchObject({ last_error: null });
});

describe("a 2025 upstream's elicitation (server-everything)", () => {
  it("reaches a 2025-era client on the call's stream, and its answer reaches the server", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: acceptAda });
    const result = await client.callTool({ name: EVERYTHING_ASKS, arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("- Name: Ada");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toBe("Please provide inputs for the following fields:");
    await client.close();
  });

  it("reaches a modern client as input_required; its retry runs the call again and the server gets the answer", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: acceptAda });
    const result = await client.callTool({ name: EVERYTHING_ASKS, arguments: {} });
    expect(textOf(result)).toContain("- Name: Ada");
    expect(asked).toHaveLength(1);
    await client.close();
  });
});

describe("a modern upstream's input_required (the v2 SDK server)", () => {
  it("passes through to a modern client; the retry resumes the server from its own requestState, without asking it again", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: confirm });
    const result = await client.callTool({ name: V2_ASKS, arguments: { item: "tea" } });
    expect(textOf(result)).toBe("order of tea placed (state v2-state:tea; asked 1 time(s))");
    expect(asked).toEqual([expect.objectContaining({ message: "Place the order of tea?" })]);
    await client.close();
  });

  it("reaches a 2025-era client as a request on the call's stream", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: confirm });
    const result = await client.callTool({ name: V2_ASKS, arguments: { item: "cake" } });
    expect(textOf(result)).toBe("order of cake placed (state v2-state:cake; asked 1 time(s))");
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it("is audited as one call of the upstream's tool", async () => {
    const client = await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: confirm });
    await client.callTool({ name: V2_ASKS, arguments: { item: "audited" } });
    await client.close();
    const rows = await waitForAuditRows("tool = ? AND status = 'ok'", [V2_ASKS]);
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });
});

describe("policy", () => {
  it("a tool that needs approval stays gated: the upstream is not called, so its question never reaches the client", async () => {
    asked.length = 0;
    const gated = { ...fedEnv, APPROVAL_REQUIRED_FOR: V2_ASKS } as Env;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: confirm }, gated);
    const result = await client.callTool({ name: V2_ASKS, arguments: { item: "gated" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("approval");
    expect(asked).toEqual([]);
    await client.close();
  });
});

describe("a client that cannot be asked", () => {
  it("a modern client that declared no elicitation gets a structured error naming the server and the method", async () => {
    const client = await downstream({ pin: MODERN }, {});
    const result = await client.callTool({ name: V2_ASKS, arguments: { item: "nothing" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("MCP server 'v2' needs input from the client during the call (elicitation/create) that this client cannot give");
    await client.close();
  });

  it("a 2025-era client without an elicitation handler refuses on the stream, and the call ends with the same error", async () => {
    const client = await downstream("legacy", {});
    const result = await client.callTool({ name: EVERYTHING_ASKS, arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("MCP server 'asks' needs input from the client during the call (elicitation/create)");
    await client.close();
  });

  it("over /v1 the call ends with EXECUTION_FAILED saying what the upstream needed", async () => {
    const result = await runCall(V2_ASKS, { item: "v1" });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content)).toMatchObject({
      error: expect.stringContaining("needs input from the client during the call (elicitation/create)"),
    });
  });
});
