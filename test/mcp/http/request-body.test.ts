/**
 * How the MCP door reads a POST body's bytes: as UTF-8 the way a decoder that never throws reads
 * it (a leading byte-order mark dropped, a stray byte made U+FFFD), with or without a
 * Content-Length, so the cheaper read of a framed body cannot change what a call receives.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { MCP_BASE } from "../helpers.ts";

const encoder = new TextEncoder();
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** The echo call's bytes with `text` spliced in raw, so the test can put any byte in the string. */
function echoBytes(text: Uint8Array, prefix: Uint8Array = new Uint8Array(0)): Uint8Array {
  const [head = "", tail = ""] = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "@" } } }).split("@");
  const parts = [prefix, encoder.encode(head), text, encoder.encode(tail)];
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

/** A body with no Content-Length: the runtime sends a stream of unknown length as chunked. */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.slice(0, 5));
      controller.enqueue(bytes.slice(5));
      controller.close();
    },
  });
}

/** Echo's answer to the body; a byte array goes with its Content-Length, as clients frame one. */
async function echoed(body: Uint8Array | ReadableStream<Uint8Array>): Promise<unknown> {
  const headers = body instanceof Uint8Array ? { ...HEADERS, "content-length": String(body.byteLength) } : HEADERS;
  const response = await exports.default.fetch(`${MCP_BASE}/mcp`, { method: "POST", headers, body });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { id: number; result: { isError?: boolean; content: { text: string }[] } };
  expect(answer.id).toBe(7);
  expect(answer.result.isError).toBeUndefined();
  return JSON.parse(answer.result.content[0]?.text ?? "null");
}

describe("MCP request body", () => {
  it("drops a leading byte-order mark and reads the JSON after it", async () => {
    expect(await echoed(echoBytes(encoder.encode("hi"), new Uint8Array([0xef, 0xbb, 0xbf])))).toEqual({ text: "hi" });
  });

  it("turns a stray byte into U+FFFD instead of refusing the body", async () => {
    expect(await echoed(echoBytes(new Uint8Array([0x61, 0xff, 0x62])))).toEqual({ text: "a\uFFFDb" });
  });

  it("reads a chunked body (no Content-Length) the same way as a framed one", async () => {
    expect(await echoed(chunked(echoBytes(new Uint8Array([0x61, 0xff, 0x62]), new Uint8Array([0xef, 0xbb, 0xbf]))))).toEqual({ text: "a\uFFFDb" });
  });
});
