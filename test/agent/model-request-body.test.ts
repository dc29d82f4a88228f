import { describe, expect, it } from "vitest";
import { modelRequestBody } from "../../src/agent/model-request-body.ts";

const messages = [
  JSON.stringify({ role: "user", content: 'héllo \u2028 "quoted"' }),
  JSON.stringify({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }] }),
];
const tools = [JSON.stringify({ type: "function", function: { name: "echo", parameters: { type: "object" } } })];

describe("modelRequestBody", () => {
  it("joins the stored message and definition texts into the Chat Completions body a serialised object would make", () => {
    const body = modelRequestBody("gpt-x", { messages, tools }, false);
    expect(JSON.parse(body)).toEqual({ model: "gpt-x", messages: messages.map((m) => JSON.parse(m)), tools: tools.map((t) => JSON.parse(t)) });
    expect(body).toContain(messages[0]);
  });

  it("asks for a stream with a final usage chunk only when streaming", () => {
    expect(JSON.parse(modelRequestBody("m", { messages, tools }, true))).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(JSON.parse(modelRequestBody("m", { messages, tools }, false))).not.toHaveProperty("stream");
  });

  it("leaves the tools field out when no tool is offered, and escapes the model's name", () => {
    const body = JSON.parse(modelRequestBody('m"1', { messages, tools: [] }, false)) as Record<string, unknown>;
    expect(body).not.toHaveProperty("tools");
    expect(body.model).toBe('m"1');
  });
});
