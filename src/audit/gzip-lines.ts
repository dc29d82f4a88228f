/** NDJSON through gzip, with workerd's own CompressionStream and DecompressionStream. */

const encoder = new TextEncoder();

/** The lines, newline-terminated and gzip-compressed, as bytes (R2 needs the length up front). */
export async function gzipLines(lines: readonly string[]): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      // One chunk per few hundred lines keeps the compressor fed without one giant string.
      for (let i = 0; i < lines.length; i += 256) controller.enqueue(encoder.encode(`${lines.slice(i, i + 256).join("\n")}\n`));
      controller.close();
    },
  });
  return new Uint8Array(await new Response(source.pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

/** The non-empty lines of a gzip-compressed NDJSON body, decompressed as they arrive. */
export async function* gunzipLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.pipeThrough(new DecompressionStream("gzip")).pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lines = (rest + value).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line !== "") yield line;
    }
    if (rest !== "") yield rest;
  } finally {
    reader.releaseLock();
  }
}
