/**
 * What a legacy HTTP+SSE upstream (MCP 2024-11-05: a GET event stream, POSTs to the endpoint it
 * announces) asks during a call, forwarded to the client that made the call exactly as a
 * Streamable HTTP upstream's is: the real server-everything in its `sse` mode as the upstream,
 * the official v2 client as the downstream in both eras, the answer POSTed back to the upstream.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING_SSE_PORT } from "../../support/test-env.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { downstream, type ElicitAnswer, MODERN, type SamplingAnswer, textOf } from "./downstream-client.ts";
import { addServer, fedEnv, runCall } from "./helpers.ts";

const ELICITS = "mcp__ssequestions__trigger-elicitation-request";
const SAMPLES = "mcp__ssequestions__trigger-sampling-request";

const asked: Record<string, unknown>[] = [];
const acceptGrace = (params: Record<string, unknown>): ElicitAnswer => {
  asked.push(params);
  return { action: "accept", content: { name: "Grace", check: true } };
};
const haiku = (params: Record<string, unknown>): SamplingAnswer => {
  asked.push(params);
  return { role: "assistant", content: { type: "text", text: "an old pond, a frog" }, model: "test-model" };
};

beforeAll(async () => {
  const server = await addServer({
    name: "ssequestions",
    url: `http://127.0.0.1:${EVERYTHING_SSE_PORT}/sse`,
    include: ["trigger-elicitation-request", "trigger-sampling-request"],
  });
  // server-everything offers these only to clients that declared elicitation and sampling: toolgate declares both on every legacy session.
  expect(server).toMatchObject({ transport: "sse", last_error: null, tools: [{ name: ELICITS }, { name: SAMPLES }] });
});

describe("a legacy SSE upstream's elicitation", () => {
  it("reaches a 2025-era client on the call's stream, and the answer POSTed back reaches the server", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: acceptGrace });
    const result = await client.callTool({ name: ELICITS, arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("- Name: Grace");
    expect(asked).toEqual([expect.objectContaining({ message: "Please provide inputs for the following fields:" })]);
    await client.close();
  });

  it("reaches a modern client as input_required; its retry runs the call again on a new legacy session and the server gets the answer", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: acceptGrace });
    const result = await client.callTool({ name: ELICITS, arguments: {} });
    expect(textOf(result)).toContain("- Name: Grace");
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it("is audited as one call of the upstream's tool", async () => {
    const client = await downstream("legacy", { elicitation: {} }, { elicit: acceptGrace });
    await client.callTool({ name: ELICITS, arguments: {} });
    await client.close();
    const rows = await waitForAuditRows("tool = ? AND status = 'ok'", [ELICITS]);
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });
});

describe("a legacy SSE upstream's sampling", () => {
  it("reaches the client, and the model's answer reaches the server", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { sampling: {} }, { sample: haiku });
    const result = await client.callTool({ name: SAMPLES, arguments: { prompt: "write a haiku" } });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("an old pond, a frog");
    expect(asked).toEqual([expect.objectContaining({ systemPrompt: "You are a helpful test server.", maxTokens: 100 })]);
    await client.close();
  });
});

describe("policy and refusals, as for Streamable HTTP upstreams", () => {
  it("a tool that needs approval stays gated: the upstream is not called, so its question never reaches the client", async () => {
    asked.length = 0;
    const gated = { ...fedEnv, APPROVAL_REQUIRED_FOR: ELICITS } as Env;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: acceptGrace }, gated);
    const result = await client.callTool({ name: ELICITS, arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("approval");
    expect(asked).toEqual([]);
    await client.close();
  });

  it("a modern client that declared no elicitation gets the structured error naming the server and the method", async () => {
    const client = await downstream({ pin: MODERN }, {});
    const result = await client.callTool({ name: ELICITS, arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("MCP server 'ssequestions' needs input from the client during the call (elicitation/create) that this client cannot give");
    await client.close();
  });

  it("a 2025-era client without a sampling handler refuses on the stream, and the call ends with the same error", async () => {
    const client = await downstream("legacy", {});
    const result = await client.callTool({ name: SAMPLES, arguments: { prompt: "no one to ask" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("MCP server 'ssequestions' needs input from the client during the call (sampling/createMessage)");
    await client.close();
  });

  it("over /v1 the call ends with EXECUTION_FAILED saying what the upstream needed", async () => {
    const result = await runCall(ELICITS, {});
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(result.message.content).toContain("needs input from the client during the call (elicitation/create)");
  });
});
