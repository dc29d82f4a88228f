/**
 * Reads a request's body as bytes, at most `limit` of them, for the routes that read the body
 * themselves (a webhook delivery, whose signature is over these exact bytes; /mcp). A body with a
 * Content-Length is refused or read by it (the runtime holds a request to its declared length); one
 * without (chunked) is counted as it arrives, so an oversized body is refused before it is all in
 * memory. framedLength is the one reading of that header, the /v1 body limit's too.
 */

export type RawBody = { ok: true; bytes: Uint8Array } | { ok: false; tooLarge: true };

export type BodyText = { ok: true; text: string } | { ok: false; tooLarge: true };

/** Non-fatal and BOM-dropping, as Request.text() decodes: a stray byte becomes U+FFFD. */
const decoder = new TextDecoder();

/**
 * The body's length as its Content-Length declares it, when that header frames the body (a whole,
 * non-negative number, and no Transfer-Encoding, which would override it): the runtime holds the
 * request to it. Undefined otherwise, and the body must be counted as it arrives.
 */
export function framedLength(request: Request): number | undefined {
  const header = request.headers.get("content-length");
  if (header === null || request.headers.has("transfer-encoding")) return undefined;
  const declared = Number(header);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/** The body's bytes, or `tooLarge` as soon as it passes `limit` (the rest is not read). */
export async function readRawBody(request: Request, limit: number): Promise<RawBody> {
  const declared = framedLength(request);
  if (declared !== undefined && declared > limit) {
    await request.body?.cancel();
    return { ok: false, tooLarge: true };
  }
  if (request.body === null) return { ok: true, bytes: new Uint8Array(0) };
  // A framed body within the limit is read in one call, which costs less than the chunk loop
  // below (the common case).
  if (declared !== undefined) return { ok: true, bytes: new Uint8Array(await request.arrayBuffer()) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return { ok: false, tooLarge: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * The body as UTF-8 text, or `tooLarge` past `limit`: for a route that parses the body itself
 * (/mcp). A framed body within the limit is read by the runtime's own decoding, which costs less
 * than taking its bytes and decoding them here (the bytes, the view and the decode all showed in
 * /mcp's profile); any other body goes through readRawBody and is decoded the same way.
 */
export async function readBodyText(request: Request, limit: number): Promise<BodyText> {
  const declared = framedLength(request);
  if (declared !== undefined && declared <= limit) return { ok: true, text: await request.text() };
  const raw = await readRawBody(request, limit);
  return raw.ok ? { ok: true, text: decoder.decode(raw.bytes) } : raw;
}
