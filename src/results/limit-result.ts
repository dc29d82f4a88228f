/**
 * Results over a tool's `maxResultSizeChars` are never silently cut (reference §3.5): the model
 * gets a head and a tail within the limit, the exact number of characters left out, and, where
 * the KV binding exists, a handle to page through the stored full text with `read_result`.
 */
import { storedResultKey } from "../storage/keys.ts";

/** The JSON value stored under `result:<handle>`. */
export interface StoredResult {
  tool: string;
  callId: string;
  sessionId: string;
  createdAt: string;
  content: string;
}

export interface LimitedResult {
  content: string;
  truncated: boolean;
  totalChars: number;
  handle?: string;
}

/** KV refuses values over 25 MiB; a UTF-16 code unit is at most 3 bytes of UTF-8. */
const KV_MAX_VALUE_CHARS = Math.floor((25 * 1024 * 1024 - 1024) / 3);

/** Avoids splitting a surrogate pair at a cut. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

function render(total: number, head: string, tail: string, handle: string | undefined): string {
  const omitted = total - head.length - tail.length;
  const where =
    handle === undefined
      ? "The full result could not be stored; narrow the request to see the rest."
      : `The full result is stored: call read_result with {"handle":"${handle}","offset":${head.length},"limit":20000} to read the omitted part.`;
  return `[Result truncated: ${total} characters in all; showing the first ${head.length} and the last ${tail.length}, ${omitted} characters omitted. ${where}]\n${head}\n[... ${omitted} characters omitted ...]\n${tail}`;
}

/**
 * The smallest limit a tool may declare (the registry refuses less): the longest notice, with a
 * handle and 16-digit totals. A cut result is at worst that notice alone, so it always fits.
 */
export const MIN_RESULT_LIMIT_CHARS = render(Number.MAX_SAFE_INTEGER, "", "", "00000000-0000-0000-0000-000000000000").length;

/** Builds a head-and-tail preview of `content` that fits in `limit` characters (at least MIN_RESULT_LIMIT_CHARS). */
export function preview(content: string, limit: number, handle: string | undefined): string {
  let budget = Math.max(0, limit - render(content.length, "", "", handle).length - 8);
  for (let attempt = 0; attempt < 4; attempt++) {
    const headLength = safeCut(content, Math.ceil((budget * 2) / 3));
    const tailStart = content.length - Math.max(0, budget - headLength);
    const text = render(content.length, content.slice(0, headLength), content.slice(safeCut(content, tailStart)), handle);
    if (text.length <= limit || budget === 0) return text;
    budget = Math.max(0, budget - (text.length - limit));
  }
  return render(content.length, "", "", handle);
}

/** Applies the size limit; stores the full text when it has to cut and KV is bound. */
export async function limitResult(
  content: string,
  limit: number,
  // ttlSeconds comes from RESULT_TTL_SECONDS, which config-schema.ts keeps at or above KV's 60 s minimum.
  call: { tool: string; callId: string; sessionId: string; env: Env; ttlSeconds: number },
): Promise<LimitedResult> {
  if (content.length <= limit) return { content, truncated: false, totalChars: content.length };
  let handle: string | undefined;
  const kv = (call.env as Partial<Env>).KV;
  if (kv !== undefined && content.length <= KV_MAX_VALUE_CHARS) {
    const candidate = crypto.randomUUID();
    const record: StoredResult = { tool: call.tool, callId: call.callId, sessionId: call.sessionId, createdAt: new Date().toISOString(), content };
    try {
      await kv.put(storedResultKey(candidate), JSON.stringify(record), { expirationTtl: call.ttlSeconds });
      handle = candidate;
    } catch (error) {
      console.error(`could not store the full result of '${call.tool}': ${String(error)}`);
    }
  }
  return { content: preview(content, limit, handle), truncated: true, totalChars: content.length, ...(handle === undefined ? {} : { handle }) };
}
