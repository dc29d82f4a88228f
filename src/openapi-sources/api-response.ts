/**
 * What the model reads from an OpenAPI call's response. JSON and text come back as the API sent
 * them (a string, so the registry's size limit shows their head and tail and stores the rest for
 * read_result); binary is reported by type and size, never returned; an error status becomes an
 * `api_error` failure carrying the API's own message and what to change.
 *
 * Bodies are read through a byte cap: an API can answer with any size, and an isolate has 128 MB.
 */
import type { ToolFailure } from "../errors/tool-failure.ts";
import { capStream, readTextCapped } from "../net/read-capped.ts";
import { isTextMedia } from "../net/text-media.ts";

/** Bytes of a success body read; the rest is cancelled, not downloaded. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** Bytes of an error body read for its message. */
const MAX_ERROR_BYTES = 16 * 1024;
/** Characters of the API's message an error carries. */
const MAX_DETAIL_CHARS = 1_000;

/** Each credential replaced where an API echoes it back: what the model reads must never hold one. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of secrets) if (value.length >= 4 && out.includes(value)) out = out.replaceAll(value, "[secret]");
  return out;
}

/** The success body as the model reads it. */
export async function successResult(response: Response, method: string, secrets: readonly string[]): Promise<string> {
  const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
  if (method === "HEAD" || response.body === null || response.status === 204 || response.status === 205) {
    await response.body?.cancel();
    return `HTTP ${response.status}: no body${contentType === "" ? "" : ` (${contentType})`}.`;
  }
  if (!isTextMedia(contentType)) {
    // Counted through the cap, so a stream without Content-Length cannot make us read forever.
    const capped = capStream(response.body, MAX_RESPONSE_BYTES);
    await capped.stream.pipeTo(new WritableStream());
    const size = capped.cut ? `more than ${MAX_RESPONSE_BYTES} bytes` : `${capped.bytes} bytes`;
    return `HTTP ${response.status}: a binary body of ${contentType}, ${size}; it is not returned (tools carry text).`;
  }
  const { text, cut } = await readTextCapped(response, MAX_RESPONSE_BYTES);
  const body = scrub(text, secrets);
  return cut ? `${body}\n[The response was cut after ${MAX_RESPONSE_BYTES} bytes; narrow the request (filters, paging) to see the rest.]` : body;
}

/** The API's own words from an error body: a JSON error's message fields, or the text. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === "object" && body !== null) {
      const fields = body as Record<string, unknown>;
      const nested = typeof fields.error === "object" && fields.error !== null ? (fields.error as Record<string, unknown>) : {};
      const parts = [
        fields.title,
        fields.message,
        fields.detail,
        fields.error_description,
        nested.message,
        typeof fields.error === "string" ? fields.error : undefined,
      ];
      const found = parts.filter((part): part is string => typeof part === "string" && part.trim() !== "");
      if (found.length > 0) return [...new Set(found)].join(": ");
    }
  } catch {
    // Not JSON: the text is the message.
  }
  return text.trim() === "" ? "(no message)" : text.trim();
}

/** What the model should change, by status. */
function fixFor(status: number, tool: string): string {
  if (status === 400 || status === 422)
    return `The API refused the arguments: read its message, correct the fields it names (see '${tool}''s parameter descriptions) and call again.`;
  if (status === 401 || status === 403)
    return "The API refused toolgate's credentials for this call; retrying will not help. Tell the user: the operator must check the source's secret and its permissions.";
  if (status === 404) return "Nothing exists at that address: check the identifiers in the arguments (list or search first to find valid ones).";
  if (status === 409 || status === 412)
    return "The request conflicts with the resource's current state: read it again, then retry with arguments that match it.";
  if (status === 413 || status === 414) return "The request is too large for the API: send less per call.";
  if (status >= 500)
    return `The API failed on its side; try '${tool}' again in a little while, and check whether a non-GET call already took effect before repeating it.`;
  return "Read the API's message and adjust the call; do not repeat it unchanged.";
}

/** The failure for an error status (4xx, or a 5xx ctx.fetch hands back), with the API's message. */
export async function errorFailure(response: Response, tool: string, operation: string, secrets: readonly string[]): Promise<ToolFailure> {
  const { text } = await readTextCapped(response, MAX_ERROR_BYTES);
  const message = scrub(messageOf(text), secrets);
  const detail = message.length > MAX_DETAIL_CHARS ? `${message.slice(0, MAX_DETAIL_CHARS)}…` : message;
  return { kind: "api_error", name: tool, operation, status: response.status, detail, fix: fixFor(response.status, tool), retryable: response.status >= 500 };
}
