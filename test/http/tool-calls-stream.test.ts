/**
 * POST /v1/tool-calls with `Accept: text/event-stream`: each result is sent as its call
 * finishes, then the whole batch; without the header the answer is the usual JSON.
 */

import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamResults, wantsEventStream } from "../../src/http/routes/tool-calls-stream.ts";
import { api } from "../support/api.ts";
import { gatewayTools, registerAll, Trace } from "../support/gateway-tools.ts";
import { openaiCall } from "../support/tool-calls.ts";

let unregister: () => void = () => undefined;
beforeAll(() => {
  unregister = registerAll(gatewayTools("sse", new Trace(), new Map()));
});
afterAll(() => unregister());

interface Event {
  name: string;
  data: Record<string, unknown>;
  /** ms since the request was sent. */
  at: number;
}

/** Reads an SSE body as it arrives, timing each event. */
async function readEvents(res: Response, sentAt: number): Promise<Event[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  const events: Event[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Record<string, unknown>;
      events.push({ name, data, at: Date.now() - sentAt });
    }
  }
  return events;
}

const sleepCall = (id: string, ms: number) => openaiCall(id, "sse_sleep", { ms, label: id });

describe("streamed batches", () => {
  it("sends each result as its call finishes, with its index and id, then the whole batch in order", async () => {
    const sentAt = Date.now();
    const res = await api("/v1/tool-calls", {
      headers: { accept: "text/event-stream" },
      body: { tool_calls: [sleepCall("slow", 600), sleepCall("fast", 10), openaiCall("bad", "nope", "{}")] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const events = await readEvents(res, sentAt);
    expect(events.map((e) => e.name)).toEqual(["result", "result", "result", "batch"]);
    const results = events.slice(0, 3);
    expect(results.map((e) => [e.data.index, e.data.id])).toEqual(
      expect.arrayContaining([
        [0, "slow"],
        [1, "fast"],
        [2, "bad"],
      ]),
    );
    expect(results.at(-1)?.data.id).toBe("slow");
    const fast = results.find((e) => e.data.id === "fast");
    // The fast result arrived long before the slow call ended, not with the batch.
    expect(fast?.at).toBeLessThan((events[3]?.at ?? 0) - 300);
    expect(fast?.data.result).toMatchObject({ id: "fast", tool: "sse_sleep", status: "ok", message: { role: "tool", tool_call_id: "fast" } });
    const batch = events[3]?.data as { session_id: string; results: { id: string; status: string; error_code: string | null }[] };
    expect(batch.session_id).toEqual(expect.any(String));
    expect(batch.results.map((r) => [r.id, r.status, r.error_code])).toEqual([
      ["slow", "ok", null],
      ["fast", "ok", null],
      ["bad", "error", "UNKNOWN_TOOL"],
    ]);
    expect(batch.results[1]).toEqual(fast?.data.result);
  });

  it("answers JSON as before without the header, and refuses a bad body with JSON even when a stream is asked for", async () => {
    const plain = await api("/v1/tool-calls", { body: { tool_calls: [sleepCall("p", 1)] } });
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await plain.json()).toMatchObject({ results: [{ id: "p", status: "ok" }] });
    const bad = await api("/v1/tool-calls", { headers: { accept: "text/event-stream" }, body: { tool_calls: [] } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("ends the stream with an error event, not an open connection, if the batch itself fails", async () => {
    const calls = [{ format: "openai" as const, id: "e1", name: "echo", arguments: "{}" }];
    const app = new Hono().post("/", (c) => streamResults(c, "sse-broken", calls, () => Promise.reject(new Error("a bug in the batch"))));
    const sentAt = Date.now();
    const res = await app.request("/", { method: "POST" });
    expect(res.status).toBe(200);
    const hung = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 2_000));
    const events = await Promise.race([readEvents(res, sentAt), hung]);
    expect(events).not.toBe("hung");
    expect((events as Event[]).map((e) => [e.name, e.data.error_code])).toEqual([["error", "INTERNAL"]]);
  });

  it("reads Accept as media ranges", () => {
    expect(wantsEventStream("text/event-stream")).toBe(true);
    expect(wantsEventStream("application/json, text/event-stream;q=0.5")).toBe(true);
    expect(wantsEventStream("text/event-stream;q=0, application/json")).toBe(false);
    expect(wantsEventStream("application/json")).toBe(false);
    expect(wantsEventStream(undefined)).toBe(false);
  });
});
