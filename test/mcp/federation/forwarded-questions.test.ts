/**
 * What a federated server asks during a call, forwarded to the client that made it: the real
 * server-everything (2025, questions on its response stream, over Streamable HTTP and over the
 * legacy HTTP+SSE transport) and the real v2 SDK server (2026-07-28, `input_required`) as
 * upstreams, the official v2 client as the downstream, in both eras. And the structured refusal
 * when the client cannot be asked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING_PORT, EVERYTHING_SSE_PORT } from "../../support/test-env.ts";
import { V2_MCP_HOST } from "../../support/v2-mcp-server.ts";
import { downstream, failedCallText, MODERN, okAuditRows, recorded, textOf } from "./downstream-client.ts";
import { addServer, fedEnv, runCall } from "./helpers.ts";

const V2_ASKS = "mcp__v2__confirm_order";

const asked: Record<string, unknown>[] = [];
const acceptAda = recorded(asked, { action: "accept", content: { name: "Ada", check: true } });
const confirm = recorded(asked, { action: "accept", content: { confirm: true } });
const haiku = recorded(asked, { role: "assistant", content: { type: "text", text: "an old pond, a frog" }, model: "test-model" });

/**
 * server-everything in both its transports: Streamable HTTP, and the legacy HTTP+SSE of 2024-11-05
 * (its questions come on the GET stream, their answers are POSTed to the endpoint it announced).
 */
const EVERYTHING = [
  { transport: "Streamable HTTP", server: "asks", url: `http://127.0.0.1:${EVERYTHING_PORT}/mcp` },
  { transport: "legacy HTTP+SSE", server: "ssequestions", url: `http://127.0.0.1:${EVERYTHING_SSE_PORT}/sse` },
];

beforeAll(async () => {
  const v2 = await addServer({ name: "v2", url: `http://${V2_MCP_HOST}/mcp` });
  expect(v2).toMatchObject({ last_error: null });
  for (const { server, url } of EVERYTHING) {
    const status = await addServer({ name: server, url, include: ["trigger-elicitation-request", "trigger-sampling-request"] });
    // server-everything offers these only to clients that declared elicitation and sampling: toolgate does.
    expect(status).toMatchObject({
      last_error: null,
      tools: [{ name: `mcp__${server}__trigger-elicitation-request` }, { name: `mcp__${server}__trigger-sampling-request` }],
    });
  }
});

describe.each(EVERYTHING)("a 2025 upstream's questions over $transport (server-everything)", ({ server }) => {
  const elicits = `mcp__${server}__trigger-elicitation-request`;
  const samples = `mcp__${server}__trigger-sampling-request`;

  it("an elicitation reaches a 2025-era client on the call's stream, and its answer reaches the server", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: acceptAda });
    const result = await client.callTool({ name: elicits, arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("- Name: Ada");
    expect(asked).toEqual([expect.objectContaining({ message: "Please provide inputs for the following fields:" })]);
    await client.close();
  });

  it("an elicitation reaches a modern client as input_required; its retry runs the call again and the server gets the answer", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: acceptAda });
    const result = await client.callTool({ name: elicits, arguments: {} });
    expect(textOf(result)).toContain("- Name: Ada");
    expect(asked).toHaveLength(1);
    await client.close();
  });

  it("a sampling request reaches the client, and the model's answer reaches the server", async () => {
    asked.length = 0;
    const client = await downstream("legacy", { sampling: {} }, { sample: haiku });
    const result = await client.callTool({ name: samples, arguments: { prompt: "write a haiku" } });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("an old pond, a frog");
    expect(asked).toEqual([expect.objectContaining({ systemPrompt: "You are a helpful test server.", maxTokens: 100 })]);
    await client.close();
  });

  it("is audited as one call of the upstream's tool", async () => {
    expect(await okAuditRows(await downstream("legacy", { elicitation: {} }, { elicit: acceptAda }), elicits, {})).not.toEqual([]);
  });

  it("a 2025-era client without an elicitation handler refuses on the stream, and the call ends with the structured error", async () => {
    expect(await failedCallText("legacy", {}, {}, elicits, {})).toContain(
      `MCP server '${server}' needs input from the client during the call (elicitation/create) that this client cannot give`,
    );
  });

  it("a 2025-era client without a sampling handler refuses likewise", async () => {
    expect(await failedCallText("legacy", {}, {}, samples, { prompt: "no one to ask" })).toContain(
      `MCP server '${server}' needs input from the client during the call (sampling/createMessage) that this client cannot give`,
    );
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
    expect(await okAuditRows(await downstream({ pin: MODERN }, { elicitation: {} }, { elicit: confirm }), V2_ASKS, { item: "audited" })).not.toEqual([]);
  });
});

describe("policy", () => {
  it.each([
    { name: V2_ASKS, args: { item: "gated" } },
    { name: "mcp__ssequestions__trigger-elicitation-request", args: {} },
  ])("$name needs approval and stays gated: the upstream is not called, so its question never reaches the client", async ({ name, args }) => {
    asked.length = 0;
    const gated = { ...fedEnv, APPROVAL_REQUIRED_FOR: name } as Env;
    const client = await downstream("legacy", { elicitation: {} }, { elicit: confirm }, gated);
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("approval");
    expect(asked).toEqual([]);
    await client.close();
  });
});

describe("a client that cannot be asked", () => {
  it.each([
    { server: "v2", name: V2_ASKS, args: { item: "nothing" } },
    { server: "ssequestions", name: "mcp__ssequestions__trigger-elicitation-request", args: {} },
  ])("a modern client that declared no elicitation gets a structured error naming the server ($server) and the method", async ({ server, name, args }) => {
    expect(await failedCallText({ pin: MODERN }, {}, {}, name, args)).toContain(
      `MCP server '${server}' needs input from the client during the call (elicitation/create) that this client cannot give`,
    );
  });

  it("over /v1 the call ends with EXECUTION_FAILED saying what the upstream needed", async () => {
    const result = await runCall(V2_ASKS, { item: "v1" });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content)).toMatchObject({
      error: expect.stringContaining("needs input from the client during the call (elicitation/create)"),
    });
  });
});
