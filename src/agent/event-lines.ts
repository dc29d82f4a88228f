/**
 * The Run object's event stream (NDJSON, one RunEvent a line: our own format, so a line split
 * reads it) turned into what a door sends: Server-Sent Events for GET /v1/runs/{id}/events, or
 * OpenAI chat chunks for a streaming chat completion.
 */
import type { RunEvent } from "./run-types.ts";

/** Maps each event to text to send (or nothing); `end` adds a closing text. */
export function mapEvents(source: ReadableStream<Uint8Array>, map: (event: RunEvent) => string, end: () => string = () => ""): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = "";
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf("\n");
        while (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line !== "") {
            const text = map(JSON.parse(line) as RunEvent);
            if (text !== "") controller.enqueue(encoder.encode(text));
          }
          newline = buffered.indexOf("\n");
        }
      },
      flush(controller) {
        const text = end();
        if (text !== "") controller.enqueue(encoder.encode(text));
      },
    }),
  );
}

/**
 * One SSE message; the id is the event's number, which Last-Event-ID resumes after. A `delta` has
 * none, so a client's last id stays that of the last stored event: resuming, it gets the whole
 * `model.turn` in place of the pieces it missed.
 */
export const sseOf = (event: RunEvent): string =>
  `${event.type === "delta" ? "" : `id: ${event.seq}\n`}event: ${event.type}\ndata: ${JSON.stringify({ ...event.data, seq: event.seq, at: event.at })}\n\n`;

export const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" } as const;
