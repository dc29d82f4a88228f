/**
 * The body of one MCP POST: plain JSON when the requests finish without sending anything
 * mid-call, an SSE stream (Streamable HTTP, "Sending Messages to the Server") as soon as a
 * handler sends a notification. The stream carries what was sent so far, then each message as it
 * comes, then the responses, and closes. Deciding late keeps the common call on the cheap path: a
 * plain JSON answer with no stream machinery.
 */
import type { Outbound } from "../server/client-channel.ts";

export const STREAM_OPENED = Symbol("stream opened");

const encoder = new TextEncoder();
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" } as const;

export class ResponseStream implements Outbound {
  readonly canStream: boolean;
  #pending: string[] = [];
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  /** Set while settled() waits: the first message sent turns the answer into a stream. */
  #open: (() => void) | undefined;

  /** `canStream`: the client accepts text/event-stream; otherwise mid-call messages are dropped. */
  constructor(canStream: boolean) {
    this.canStream = canStream;
  }

  send(message: string): void {
    if (!this.canStream || this.#closed) return;
    if (this.#writer !== undefined) {
      this.#write(message);
      return;
    }
    this.#pending.push(message);
    this.#open?.();
  }

  /**
   * The answers once `work` has them all, or STREAM_OPENED as soon as a message is sent first
   * (already, or while it runs): then the response must be the stream. One promise, not a race
   * of two: every request waits here, and most never open a stream.
   */
  settled(work: Promise<string[]>): Promise<string[] | typeof STREAM_OPENED> {
    if (this.#pending.length > 0) return Promise.resolve(STREAM_OPENED);
    return new Promise((resolve, reject) => {
      this.#open = () => resolve(STREAM_OPENED);
      work.then(resolve, reject);
    });
  }

  /** The SSE response: the messages sent so far, later ones as they come, then `responses`. */
  response(responses: Promise<string[]>): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    this.#writer = writer;
    for (const message of this.#pending) this.#write(message);
    this.#pending = [];
    void responses
      .then((answers) => answers.forEach((answer) => this.#write(answer)))
      .catch((error: unknown) => console.error(`MCP: answering a streamed request failed: ${String(error)}`))
      .finally(() => {
        this.#closed = true;
        writer.close().catch(() => undefined);
      });
    return new Response(readable, { status: 200, headers: SSE_HEADERS });
  }

  #write(message: string): void {
    // A client that went away makes writes fail; the call itself still finishes and is audited.
    this.#writer?.write(encoder.encode(`event: message\ndata: ${message}\n\n`)).catch(() => undefined);
  }
}
