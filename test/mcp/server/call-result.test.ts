import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type AnswerableOutcome, toToolCallAnswer } from "../../../src/mcp/server/call-result.ts";
import { RPC_INVALID_PARAMS } from "../../../src/mcp/server/json-rpc.ts";
import { outcomeOfFailure } from "../../../src/pipeline/outcome.ts";
import { toolContent } from "../../../src/registry/tool-content.ts";
import { dispatchCall } from "../../support/dispatch.ts";

const run = (name: string, args: unknown) => dispatchCall(name, args, { callId: "c1", sessionId: "s1", env });

describe("tools/call answers", () => {
  it("sends a tool's text result as one text block", async () => {
    const answer = toToolCallAnswer(await run("echo", { text: "hi" }), "2025-11-25");
    expect(answer).toEqual({ result: { content: [{ type: "text", text: '{"text":"hi"}' }] } });
  });

  it("answers an unknown tool with invalid params, keeping the suggestion", async () => {
    const answer = toToolCallAnswer(await run("ecko", {}), "2025-11-25");
    expect(answer).toMatchObject({ error: { code: RPC_INVALID_PARAMS, data: { error_code: "UNKNOWN_TOOL" } } });
    expect("error" in answer ? answer.error.message : "").toContain("Did you mean 'echo'?");
  });

  it("answers invalid arguments with invalid params carrying our field messages", async () => {
    const answer = toToolCallAnswer(await run("echo", { text: 5 }), "2025-11-25");
    expect(answer).toMatchObject({ error: { code: RPC_INVALID_PARAMS, data: { error_code: "INVALID_ARGUMENTS", issues: [{ path: "text" }] } } });
    expect("error" in answer ? answer.error.message : "").toContain("'text': ");
  });

  it("answers a reused tool call id, the caller's mistake, with invalid params naming the id", () => {
    const reused = outcomeOfFailure("delete_result", "d1", { kind: "call_id_reused", name: "delete_result", callId: "d1", firstTool: "delete_result" }, {});
    const answer = toToolCallAnswer(reused, "2025-11-25");
    expect(answer).toMatchObject({ error: { code: RPC_INVALID_PARAMS, data: { error_code: "CALL_ID_REUSED" } } });
    expect("error" in answer ? answer.error.message : "").toContain("Tool call id 'd1' was already used");
  });

  it("answers any other failure with an isError result whose text is the message and the suggestion", async () => {
    const outcome = await run("echo", { text: "x" });
    const failed: AnswerableOutcome = {
      ...outcome,
      status: "error",
      errorCode: "TOOL_TIMEOUT",
      envelope: { error: "Tool 'echo' timed out after 1s.", error_code: "TOOL_TIMEOUT", stage: "execute", suggestion: "Narrow the request.", retryable: true },
    };
    expect(toToolCallAnswer(failed, "2025-11-25")).toEqual({
      result: { content: [{ type: "text", text: "Tool 'echo' timed out after 1s.\nNarrow the request." }], isError: true },
    });
  });

  it("says a call awaits approval, until when, and where the decision is (approvals outcome contract)", () => {
    const pending: AnswerableOutcome = {
      tool: "deploy",
      status: "pending_approval",
      errorCode: "APPROVAL_REQUIRED",
      content: '{"error":"approval required"}',
      truncated: false,
      approval: { id: "apr_1", expiresAt: Date.UTC(2026, 10, 30, 12), url: "https://gw.example/approvals/apr_1" },
    };
    const answer = toToolCallAnswer(pending, "2025-11-25");
    expect(answer).toMatchObject({ result: { isError: true } });
    const text = "result" in answer ? (answer.result.content[0] as { text: string }).text : "";
    expect(text).toContain("approval apr_1 is pending until 2026-11-30T12:00:00.000Z");
    expect(text).toContain("https://gw.example/approvals/apr_1");
    // Calling again over MCP would ask for a second approval (and run the action twice).
    expect(text).toContain("Do not call 'deploy' again");
    expect(text).toContain("GET /v1/approvals/apr_1?wait=30");
  });

  it("sends content blocks as they are, unless the text no longer matches them", async () => {
    const value = toolContent({ type: "image", data: "AAAA", mimeType: "image/png" });
    const base: AnswerableOutcome = { tool: "t", status: "ok", content: JSON.stringify(value), value, truncated: false };
    expect(toToolCallAnswer(base, "2025-11-25")).toEqual({ result: { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] } });
    // A transform hook rewrote the text: its text wins over the tool's blocks.
    expect(toToolCallAnswer({ ...base, content: "[redacted]" }, "2025-11-25")).toEqual({ result: { content: [{ type: "text", text: "[redacted]" }] } });
  });

  it("links a truncated result's stored full text as a resource, from 2025-06-18 on", async () => {
    const outcome = await run("generate_lines", { count: 2000 });
    expect(outcome.resultHandle).toBeDefined();
    const answer = toToolCallAnswer(outcome, "2025-06-18");
    expect("result" in answer ? answer.result.content[1] : undefined).toEqual({
      type: "resource_link",
      uri: `toolgate://results/${outcome.resultHandle ?? ""}`,
      name: "Full result of generate_lines",
      mimeType: "text/plain",
    });
    expect(toToolCallAnswer(outcome, "2025-03-26")).toEqual({ result: { content: [{ type: "text", text: outcome.content }] } });
  });
});
