/**
 * Helpers for handlers that build their own JSON strings, as Hermes' `tool_error` and
 * `tool_result` (reference §2.7). A handler may also return a plain value; the pipeline
 * serialises it the same way.
 */

/** The text of a tool-reported error is bounded, as the original's LATE version does. */
const MAX_ERROR_CHARS = 2048;

/** `{"error": message, ...extra}` as a JSON string. */
export function toolError(message: string, extra: Record<string, unknown> = {}): string {
  const text = message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}… [truncated]` : message;
  return JSON.stringify({ error: text, ...extra });
}

/** `data` as a JSON string, or the named fields when no data is given. */
export function toolResult(data?: unknown, fields: Record<string, unknown> = {}): string {
  return JSON.stringify(data === undefined ? fields : data);
}
