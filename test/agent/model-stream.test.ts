import { exports } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil, startRun } from "../support/runs.ts";
import { TEST_ADMIN_TOKEN, TEST_MODEL_NAME } from "../support/test-env.ts";

/** The official SDK pointed at toolgate, through the Worker's real fetch handler. */
const client = new OpenAI({
  baseURL: "https://toolgate.test/v1",
  apiKey: TEST_ADMIN_TOKEN,
  maxRetries: 0,
  fetch: (input, init) => exports.default.fetch(input as RequestInfo, init),
});
const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const ANSWER = "Streaming arrives piece by piece.";

describe("the model's answer streams token by token", () => {
  it("reaches an openai client in several content chunks while the model writes it", async () => {
    const script = await scriptModel([
      { content: ANSWER, chunk_chars: 4, chunk_delay_ms: 20, usage: { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 } },
    ]);
    const stream = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      stream: true,
      messages: [{ role: "user", content: `${marker(script)} stream` }],
    });
    const pieces: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (typeof content === "string" && content !== "") pieces.push(content);
      usage = chunk.usage ?? usage;
    }
    expect(pieces.join("")).toBe(ANSWER);
    expect(pieces.length).toBeGreaterThan(3);
    expect(usage).toEqual({ prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 });
    const sent = (await sentToModel(script)).requests[0] as { stream?: boolean; stream_options?: unknown };
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("sends `delta` events without an SSE id, so a resumed reader gets the whole message instead", async () => {
    const script = await scriptModel([{ content: ANSWER, chunk_chars: 5, chunk_delay_ms: 20 }]);
    const { id } = await startRun({ input: `${marker(script)} events` });
    const text = await (await api(`/v1/runs/${id}/events`)).text();
    const messages = text.split("\n\n").filter((m) => m !== "");
    const deltas = messages.filter((m) => m.includes("event: delta\n"));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((m) => !/^id: /m.test(m))).toBe(true);
    expect(deltas.map((m) => (JSON.parse(m.slice(m.indexOf("data: ") + 6)) as { content: string }).content).join("")).toBe(ANSWER);
    // What a reader resuming after run.started (id 1) gets: stored events only, the answer whole.
    const resumed = await (await api(`/v1/runs/${id}/events`, { headers: { "last-event-id": "1" } })).text();
    expect([...resumed.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual(["model.turn", "run.finished"]);
    expect(resumed).toContain(JSON.stringify(ANSWER));
  });

  it("gives a reader joining mid-answer the text so far in one delta, then the rest", async () => {
    const script = await scriptModel([{ content: ANSWER, chunk_chars: 3, chunk_delay_ms: 60 }]);
    const { id } = await startRun({ input: `${marker(script)} join late` });
    // A first reader, to know when the answer is under way.
    const early = ((await api(`/v1/runs/${id}/events`)).body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    while ((seen.match(/event: delta\n/g) ?? []).length < 3) seen += new TextDecoder().decode((await early.read()).value);
    const late = (await (await api(`/v1/runs/${id}/events`)).text()).split("\n\n").filter((m) => m.includes("event: delta\n"));
    await early.cancel();
    const pieces = late.map((m) => (JSON.parse(m.slice(m.indexOf("data: ") + 6)) as { content: string }).content);
    expect(pieces.join("")).toBe(ANSWER);
    expect(pieces[0]?.length).toBeGreaterThanOrEqual(9);
  });

  it("assembles tool calls whose arguments arrive split across chunks", async () => {
    const args = [JSON.stringify({ text: 'split "across" chunks', times: 2 }), JSON.stringify({ text: "second call" })];
    const script = await scriptModel([
      {
        content: "Calling.",
        chunk_chars: 2,
        tool_calls: [
          { id: "sc_1", name: "echo", arguments: args[0] ?? "" },
          { id: "sc_2", name: "echo", arguments: args[1] ?? "" },
        ],
      },
      { content: "done" },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(script)} split` })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", answer: "done" });
    expect(run.steps[0]?.calls.map((c) => [c.id, c.status])).toEqual([
      ["sc_1", "ok"],
      ["sc_2", "ok"],
    ]);
    const second = (await sentToModel(script)).requests[1]?.messages ?? [];
    expect(second[1]).toMatchObject({
      role: "assistant",
      content: "Calling.",
      tool_calls: [
        { id: "sc_1", function: { name: "echo", arguments: args[0] } },
        { id: "sc_2", function: { name: "echo", arguments: args[1] } },
      ],
    });
    expect(second.slice(2)).toEqual([
      { role: "tool", tool_call_id: "sc_1", content: JSON.stringify({ text: 'split "across" chunks split "across" chunks' }) },
      { role: "tool", tool_call_id: "sc_2", content: JSON.stringify({ text: "second call" }) },
    ]);
  });

  it("records usage from the stream's last chunk, and copes with a server that sends none", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "u_1", name: "echo", arguments: '{"text":"u"}' }], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } },
      { content: "no usage reported for this turn" },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(script)} usage`, token_budget: 1_000 })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } });
  });

  it("fails the run with MODEL_STREAM_INTERRUPTED when the stream is cut after part of the answer went out", async () => {
    const script = await scriptModel([{ content: "This answer will be cut off half way.", cut: { after: 4 } }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} cut` })).id, FINISHED);
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("MODEL_STREAM_INTERRUPTED");
    expect(run.error?.message).toMatch(/after part of the answer was streamed \(after 1 attempt\(s\)\)/);
    // Not asked again: the text a client has shown cannot be taken back.
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });

  it("asks again when the stream is cut before any text went out (inside a tool call's arguments)", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "r_1", name: "echo", arguments: '{"text":"retried whole"}' }], cut: { after: 3, attempts: 1 } },
      { content: "recovered" },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(script)} cut early` })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", answer: "recovered", tool_calls: 1 });
    expect((await getRun(run.id)).messages?.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: "r_1", content: '{"text":"retried whole"}' });
    expect((await sentToModel(script)).requests).toHaveLength(3);
  });

  it("ends a stream that goes quiet with MODEL_TIMEOUT instead of hanging the run", async () => {
    const script = await scriptModel([{ content: "and then silence", stall_after: 2 }]);
    const started = Date.now();
    const run = await runUntil((await startRun({ input: `${marker(script)} stall` })).id, FINISHED, 15_000);
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("MODEL_TIMEOUT");
    expect(run.error?.message).toContain("sent nothing for 4000 ms");
    expect(Date.now() - started).toBeLessThan(12_000);
  });
});

describe("a model server that ignores stream: true and answers whole JSON", () => {
  it("runs each turn from the whole chat.completion: tool calls, answer and usage, with no deltas", async () => {
    const script = await scriptModel([
      {
        tool_calls: [{ id: "w_1", name: "echo", arguments: '{"text":"whole"}' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        ignore_stream: true,
      },
      { content: "It answered whole.", usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 }, ignore_stream: true },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(script)} no stream` })).id, FINISHED);
    expect(run).toMatchObject({
      status: "completed",
      answer: "It answered whole.",
      tool_calls: 1,
      usage: { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 },
    });
    expect(run.steps[0]?.calls.map((c) => [c.id, c.status])).toEqual([["w_1", "ok"]]);
    const sent = (await sentToModel(script)).requests as { stream?: boolean; messages: unknown[] }[];
    // Asked to stream both times, answered once each: the JSON body is the turn, not a failure to retry.
    expect(sent.map((request) => request.stream)).toEqual([true, true]);
    expect(sent[1]?.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "w_1", content: '{"text":"whole"}' });
    const events = await (await api(`/v1/runs/${run.id}/events`)).text();
    expect([...events.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual(["run.started", "model.turn", "tool.result", "model.turn", "run.finished"]);
  });

  it("still streams a chat completion to an openai client, the answer arriving in one piece", async () => {
    const script = await scriptModel([{ content: "One piece, not streamed upstream.", ignore_stream: true }]);
    const stream = await client.chat.completions.create({
      model: TEST_MODEL_NAME,
      stream: true,
      messages: [{ role: "user", content: `${marker(script)} stream anyway` }],
    });
    let text = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe("One piece, not streamed upstream.");
    expect(finish).toBe("stop");
    expect((await sentToModel(script)).requests[0]).toMatchObject({ stream: true });
  });
});
