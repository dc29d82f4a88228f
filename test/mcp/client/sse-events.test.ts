import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS, readSseEvents } from "../../../src/mcp/client/sse-events.ts";

/** A body delivered in the given chunks, as a network would split it. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>) {
  const events = [];
  for await (const event of readSseEvents(stream)) events.push(event);
  return events;
}

describe("readSseEvents", () => {
  it("parses events split anywhere across chunks, with CRLF, LF and CR line ends", async () => {
    expect(await all(body("event: endp", "oint\r\ndata: /message?s=1\r\n\r", '\ndata: {"a":1}\n\nid: 7\rdata: x\r\r'))).toEqual([
      { event: "endpoint", data: "/message?s=1" },
      { event: "message", data: '{"a":1}' },
      { event: "message", data: "x", id: "7" },
    ]);
  });

  it("joins multi-line data, keeps spaces after the first, and skips comments and unknown fields", async () => {
    expect(await all(body(": keep-alive\n", "colour: red\ndata:  two spaces\ndata:line\n\n"))).toEqual([{ event: "message", data: " two spaces\nline" }]);
  });

  it("keeps the stream's retry time for the events after it, and ignores one that is not a number", async () => {
    expect(await all(body("retry: 500\ndata: a\n\nretry: soon\ndata: b\n\n"))).toEqual([
      { event: "message", data: "a", retry: 500 },
      { event: "message", data: "b", retry: 500 },
    ]);
  });

  it("yields an event with empty data (a priming event) and drops a block without data", async () => {
    expect(await all(body("id: 1\ndata:\n\nevent: nothing\n\n"))).toEqual([{ event: "message", data: "", id: "1" }]);
  });

  it("refuses an event larger than the 10 MiB cap instead of buffering it", async () => {
    const chunk = `data: ${"x".repeat(1024 * 1024)}`;
    await expect(all(body(...Array.from({ length: MAX_MESSAGE_CHARS / chunk.length + 2 }, () => chunk)))).rejects.toThrow("larger than");
  });

  it("stops reading when the consumer leaves the loop early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: first\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readSseEvents(stream)) {
      expect(event.data).toBe("first");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
