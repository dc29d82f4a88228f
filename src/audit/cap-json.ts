/**
 * Keeps stored arguments small (a D1 row and a queue message stay well within their limits)
 * while staying valid JSON, so readers can always parse the column.
 */

const encoder = new TextEncoder();

const byteLength = (text: string): number => encoder.encode(text).length;

/** The marker that replaces JSON longer than the cap. */
export interface TruncatedJson {
  $truncated: true;
  /** UTF-8 bytes of the whole JSON text. */
  bytes: number;
  /** The longest prefix of the JSON text that fits. */
  preview: string;
}

/**
 * `json` itself when it fits in `maxBytes` of UTF-8, otherwise a TruncatedJson marker (as JSON)
 * that fits, with as much of the text as possible as its preview.
 */
export function capJson(json: string, maxBytes: number): { text: string; truncated: boolean } {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most arguments fit without being encoded.
  if (json.length * 3 <= maxBytes) return { text: json, truncated: false };
  const bytes = byteLength(json);
  if (bytes <= maxBytes) return { text: json, truncated: false };
  const marker = (chars: number): string => {
    let end = chars;
    // Never split a surrogate pair: half of one is not text.
    const last = json.charCodeAt(end - 1);
    if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
    const value: TruncatedJson = { $truncated: true, bytes, preview: json.slice(0, end) };
    return JSON.stringify(value);
  };
  // Every character is at least one byte, so no preview longer than maxBytes characters fits.
  let lo = 0;
  let hi = Math.min(json.length, maxBytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (byteLength(marker(mid)) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return { text: marker(lo), truncated: true };
}
