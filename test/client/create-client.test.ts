/**
 * The typed client (`toolgate/client`, resolved through package.json `exports` as an app of the
 * repo imports it) running inside workerd with openapi-fetch, against the Worker's real fetch
 * handler: list tools in each shape, run a batch, be refused with the gateway's error, and wait
 * on a held call while a person approves it.
 */
import { exports } from "cloudflare:workers";
import { createClient, type ToolCallsRequest, type ToolFormat, type ToolgateClient, ToolgateRequestError } from "toolgate/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerApprovalTools, runs } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

const BASE_URL = "https://toolgate.test";
const send = (request: Request) => exports.default.fetch(request);

type ToolCall = ToolCallsRequest["tool_calls"][number];
const openaiCall = (id: string, name: string, args: unknown): ToolCall => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
const anthropicCall = (id: string, name: string, input: unknown): ToolCall => ({ type: "tool_use", id, name, input });

let unregister: () => void;
let agent: ToolgateClient;
let admin: ToolgateClient;

beforeAll(async () => {
  unregister = registerApprovalTools("tcl");
  const { key } = await createKey({ name: "client-agent", role: "agent" });
  agent = createClient({ baseUrl: BASE_URL, key, fetch: send });
  admin = createClient({ baseUrl: BASE_URL, key: TEST_ADMIN_TOKEN, fetch: send });
});
afterAll(() => unregister());

describe("the typed client", () => {
  it.each<[ToolFormat, (tool: Record<string, unknown>) => unknown]>([
    ["openai", (tool) => (tool.function as { name: string }).name],
    ["anthropic", (tool) => tool.name],
    ["mcp", (tool) => tool.name],
  ])("lists the tools in the %s shape", async (format, nameOf) => {
    const list = await agent.listTools({ format });
    expect(list.format).toBe(format);
    expect(list.tools.map((tool) => nameOf(tool as Record<string, unknown>))).toContain("echo");
  });

  it("runs a batch of OpenAI and Anthropic calls and gets each call's message", async () => {
    const batch = await agent.callTools({
      session_id: "tcl-batch",
      tool_calls: [openaiCall("call_1", "echo", { text: "hi", times: "2" }), anthropicCall("toolu_1", "echo", { text: 5 })],
    });
    expect(batch.results.map((result) => [result.id, result.status, result.error_code])).toEqual([
      ["call_1", "ok", null],
      ["toolu_1", "error", "INVALID_ARGUMENTS"],
    ]);
    expect(batch.results[0]?.message).toEqual({ role: "tool", tool_call_id: "call_1", content: JSON.stringify({ text: "hi hi" }) });
  });

  it("throws the gateway's refusal as a ToolgateRequestError with its status and error code", async () => {
    const refused = await agent.listTools({ toolset: "tcl-no-such-toolset" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolgateRequestError);
    expect(refused).toMatchObject({ status: 404, errorCode: "UNKNOWN_TOOLSET" });
    expect((refused as ToolgateRequestError).body?.suggestion).toBeTruthy();
  });

  it("types every other route on api, with the key sent", async () => {
    const { data, response } = await admin.api.GET("/v1/keys");
    expect(response.status).toBe(200);
    expect(data?.keys.map((key) => key.name)).toContain("client-agent");
  });

  it("waits on a held call while a person approves it, and gets the message for the model", async () => {
    const batch = await agent.callTools({ session_id: "tcl-approve", tool_calls: [openaiCall("c1", "tcl_write", { note: "tcl-approved" })] });
    const approvalId = batch.results[0]?.approval?.id ?? "";
    expect(approvalId).not.toBe("");
    const waiting = agent.waitForApproval(approvalId, { sessionId: "tcl-approve" });
    // The agent's long poll is under way before anyone decides.
    expect((await agent.getApproval(approvalId, { sessionId: "tcl-approve" })).status).toBe("pending");
    const decided = await admin.api.POST("/v1/approvals/{id}", { params: { path: { id: approvalId } }, body: { decision: "approve", scope: "once" } });
    expect(decided.response.status).toBe(200);
    const settled = await waiting;
    expect(settled).toMatchObject({ status: "approved", result: { status: "ok" } });
    expect(settled.message).toEqual({ role: "tool", tool_call_id: "c1", content: JSON.stringify({ written: "tcl-approved" }) });
    expect(runs.get("tcl-approved")).toBe(1);
  });

  it("stops waiting when its signal is aborted", async () => {
    const batch = await agent.callTools({ session_id: "tcl-abort", tool_calls: [openaiCall("c1", "tcl_write", { note: "tcl-aborted" })] });
    const approvalId = batch.results[0]?.approval?.id ?? "";
    const controller = new AbortController();
    const waiting = agent.waitForApproval(approvalId, { sessionId: "tcl-abort", signal: controller.signal });
    controller.abort(new Error("the user closed the chat"));
    await expect(waiting).rejects.toThrow("the user closed the chat");
    expect(runs.get("tcl-aborted")).toBeUndefined();
  });
});
