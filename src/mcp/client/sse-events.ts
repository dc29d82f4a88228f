/**
 * A reader for text/event-stream bodies (the HTML Living Standard's event-stream format, which
 * both MCP HTTP transports use): yields one event per blank-line-terminated block, joining
 * multi-line `data:` fields with "\n" and ignoring comments and unknown fields.
 */
import { McpClientError } from "./json-rpc.ts";

/**
 * The most one event (or a JSON answer) may hold: the reference client's 10 MiB body cap, so a
 * hostile or broken server cannot make the isolate buffer without end (128 MB of memory).
 */
export const MAX_MESSAGE_CHARS = 10 * 1024 * 1024;

export interface SseEvent {
  /** `message` unless the block named another event type. */
  event: string;
  data: string;
  id?: string;
  /** The stream's reconnection time in ms, once a `retry` field set it. */
  retry?: number;
}

/**
 * Yields the events of a stream until it ends. Breaking out of the loop cancels the body, so a
 * caller that has its answer does not keep a long-lived stream open.
 *
 * @example
 * for await (const event of readSseEvents(response.body)) if (event.event === "endpoint") return event.data;
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      if (buffer.length + data.reduce((sum, line) => sum + line.length, 0) > MAX_MESSAGE_CHARS) {
        throw new McpClientError("protocol", `an event of the stream is larger than ${MAX_MESSAGE_CHARS} characters`);
      }
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0)
            yield {
              event: event === "" ? "message" : event,
              data: data.join("\n"),
              ...(id === undefined ? {} : { id }),
              ...(retry === undefined ? {} : { retry }),
            };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        // One optional space after the colon belongs to the syntax, not to the value.
        const raw = colon === -1 ? "" : line.slice(colon + 1);
        const fieldValue = raw.startsWith(" ") ? raw.slice(1) : raw;
        if (field === "data") data.push(fieldValue);
        else if (field === "event") event = fieldValue;
        else if (field === "id") id = fieldValue;
        else if (field === "retry" && /^\d+$/.test(fieldValue)) retry = Number(fieldValue);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
