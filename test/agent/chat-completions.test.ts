import { exports } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil } from "../support/runs.ts";
import { TEST_ADMIN_TOKEN, TEST_MODEL_NAME } from "../support/test-env.ts";

/** The official SDK pointed at toolgate, through the Worker's real fetch handler. */
const client = new OpenAI({
  baseURL: "https://toolgate.test/v1",
  apiKey: TEST_ADMIN_TOKEN,
  maxRetries: 0,
  fetch: (input, init) => exports.default.fetch(input as RequestInfo, init),
});

interface Toolgate {
  run_id: string;
  status: string;
  steps: { calls: { id: string; tool: string; status: string }[] }[];
  pending_approvals: { approval_id: string; url: string }[];
}

const echoTurn = { tool_calls: [{ id: "call_e", name: "echo", arguments: '{"text":"ping"}' }] };
const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];

describe("POST /v1/chat/completions with the openai package", () => {
  it("answers a chat.completion after running toolgate's tools, listing the steps", async () => {
    const script = await scriptModel([echoTurn, { content: "pong", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }]);
    const completion = await client.chat.completions.create({ model: TEST_MODEL_NAME, messages: [{ role: "user", content: `${marker(script)} ping` }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.message).toMatchObject({ role: "assistant", content: "pong" });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage?.total_tokens).toBe(4);
    const toolgate = (completion as typeof completion & { toolgate: Toolgate }).toolgate;
    expect(toolgate.status).toBe("completed");
    expect(toolgate.steps[0]?.calls).toEqual([expect.objectContaining({ id: "call_e", tool: "echo", status: "ok" })]);
    const sent = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(sent).toEqual({ role: "tool", tool_call_id: "call_e", content: '{"text":"ping"}' });
  });

  it("asks the model for whole turns when the caller does not stream, and streamed ones when it does", async () => {
    const whole = await scriptModel([{ content: "whole" }]);
    await client.chat.completions.create({ model: TEST_MODEL_NAME, messages: [{ role: "user", content: `${marker(whole)} hi` }] });
    expect((await sentToModel(whole)).requests[0]).not.toHaveProperty("stream");
    const streamed = await scriptModel([{ content: "streamed" }]);
    for await (const chunk of await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      stream: true,
      messages: [{ role: "user", content: `${marker(streamed)} hi` }],
    }))
      void chunk;
    expect((await sentToModel(streamed)).requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("streams ordinary chunks the SDK reads, with tool steps in chunks it reads past", async () => {
    const script = await scriptModel([echoTurn, { content: "streamed pong" }]);
    const stream = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      stream: true,
      messages: [{ role: "user", content: `${marker(script)} ping` }],
    });
    let text = "";
    let finish: string | null = null;
    const steps: string[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      const step = (chunk as typeof chunk & { toolgate?: { event: string } }).toolgate;
      if (step !== undefined) steps.push(step.event);
    }
    expect(text).toBe("streamed pong");
    expect(finish).toBe("stop");
    expect(steps).toEqual(["run.started", "model.turn", "tool.result", "run.finished"]);
  });

  it("says a call waits on approval, with its page, and the run goes on durably", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "call_d", name: "delete_result", arguments: '{"handle":"0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88"}' }] },
      { content: "done after approval" },
    ]);
    const completion = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      messages: [{ role: "user", content: `${marker(script)} delete` }],
      session_id: "chat-appr-1",
    } as never);
    const toolgate = (completion as typeof completion & { toolgate: Toolgate }).toolgate;
    expect(toolgate.status).toBe("awaiting_approval");
    const approval = toolgate.pending_approvals[0];
    expect(completion.choices[0]?.message.content).toContain(`approval ${approval?.approval_id}`);
    expect(completion.choices[0]?.message.content).toContain(String(approval?.url));
    await api(`/v1/approvals/${approval?.approval_id}?session_id=chat-appr-1`, { body: { decision: "approve", scope: "once" } });
    expect(await runUntil(toolgate.run_id, FINISHED)).toMatchObject({ status: "completed", answer: "done after approval" });
  });

  it("streams the approval note and ends the stream while the run waits", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "call_s", name: "delete_result", arguments: '{"handle":"0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88"}' }] },
      { content: "later" },
    ]);
    const stream = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      stream: true,
      messages: [{ role: "user", content: `${marker(script)} delete` }],
      session_id: "chat-appr-2",
      // toolgate's session_id is not in the SDK's params; naming the streaming params picks the overload that returns a stream.
    } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toMatch(/waiting for a person's approval: 'delete_result' \(approval [0-9a-f-]+, decide at .*\/approvals\//);
  });

  it("returns calls of tools the client declared as ordinary tool_calls", async () => {
    const script = await scriptModel([{ tool_calls: [{ id: "call_c", name: "get_weather", arguments: '{"city":"Oslo"}' }] }]);
    const completion = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      messages: [{ role: "user", content: `${marker(script)} weather` }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    });
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: "call_c", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
    // The model is offered toolgate's definitions and, after them, the client's as it declared it.
    const tools = (await sentToModel(script)).requests[0]?.tools ?? [];
    expect(tools.map((t) => t.function.name)).toContain("echo");
    expect(tools.at(-1)).toEqual({
      type: "function",
      function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
    });
  });

  it("surfaces a failed run as an APIError the SDK throws", async () => {
    const script = await scriptModel([{ content: "x", fail: [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }] }]);
    await expect(
      client.chat.completions.create({ model: TEST_MODEL_NAME, messages: [{ role: "user", content: `${marker(script)} down` }] }),
    ).rejects.toMatchObject({ status: 502 });
  });

  it("ends a turn asked for whole that the model does not answer in time with MODEL_TIMEOUT, never hanging", async () => {
    const script = await scriptModel([{ content: "too late", delay_ms: 6_000 }]);
    const failure = await client.chat.completions
      .create({ model: TEST_MODEL_NAME, messages: [{ role: "user", content: `${marker(script)} slow whole` }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 502 });
    expect(String((failure as Error).message)).toContain("the model did not answer within 4000 ms");
    expect((await sentToModel(script)).requests).toHaveLength(1);
  }, 15_000);

  it("keeps the run going when the client hangs up mid-stream", async () => {
    const script = await scriptModel([echoTurn, { content: "finished without you", delay_ms: 300 }]);
    const response = await exports.default.fetch("https://toolgate.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ model: TEST_MODEL_NAME, stream: true, messages: [{ role: "user", content: `${marker(script)} bye` }] }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = /"run_id":"([0-9a-f-]+)"/.exec(first)?.[1] ?? /chatcmpl-([0-9a-f-]+)/.exec(first)?.[1];
    await reader.cancel();
    expect(runId).toBeDefined();
    expect(await runUntil(String(runId), FINISHED)).toMatchObject({ status: "completed", answer: "finished without you", error: null });
  });
});
