/**
 * Reads a response body up to a byte cap and no further: a page or API answer can be any size,
 * and an isolate has 128 MB. The rest of the body is cancelled, not downloaded.
 */

export interface CappedStream {
  stream: ReadableStream<Uint8Array>;
  /** True once the cap cut the body (read it after the stream is consumed). */
  readonly cut: boolean;
  /** Bytes passed through so far. */
  readonly bytes: number;
}

/** `body` passed through until `maxBytes`, then ended. */
export function capStream(body: ReadableStream<Uint8Array>, maxBytes: number): CappedStream {
  const state = { cut: false, bytes: 0 };
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const room = maxBytes - state.bytes;
        if (chunk.byteLength <= room) {
          state.bytes += chunk.byteLength;
          controller.enqueue(chunk);
          return;
        }
        if (room > 0) controller.enqueue(chunk.subarray(0, room));
        state.bytes = maxBytes;
        state.cut = true;
        // Ends the readable side; pipeThrough then cancels the source, so the rest is never read.
        controller.terminate();
      },
    }),
  );
  return {
    stream,
    get cut() {
      return state.cut;
    },
    get bytes() {
      return state.bytes;
    },
  };
}

/** The body as UTF-8 text, at most `maxBytes` of it. */
export async function readTextCapped(response: Response, maxBytes: number): Promise<{ text: string; cut: boolean; bytes: number }> {
  if (response.body === null) return { text: "", cut: false, bytes: 0 };
  const capped = capStream(response.body, maxBytes);
  // fatal: false, so a cut in the middle of a character ends in U+FFFD rather than an exception.
  const text = await new Response(capped.stream).text();
  return { text, cut: capped.cut, bytes: capped.bytes };
}
