/**
 * Makes a handler's exception text safe to show the model (reference §3.2, from ironclaw#1639):
 * role tags that could be read as conversation structure, code fences and CDATA sections are
 * stripped, the text is capped, and credentials are redacted (reference §6.5), because an
 * exception message often quotes the request that failed.
 */

export const MAX_ERROR_TEXT = 2000;

const ROLE_TAGS = /<\/?(?:tool_call|function_call|result|response|output|input|system|assistant|user)>/gi;
// The original strips fences only at line starts; a fence mid-line can open a code block just
// as well, so every run of three backticks goes (with a markup language tag after it).
const FENCE = /```(?:json|xml|html|markdown)?/gi;
const CDATA = /<!\[CDATA\[[\s\S]*?\]\]>/g;

const CREDENTIALS: readonly [RegExp, string][] = [
  [/\bBearer\s+\S+/gi, "Bearer [REDACTED]"],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, "[REDACTED]"],
  [/\bgh[pousr]_[A-Za-z0-9_]{1,255}/g, "[REDACTED]"],
  [/\b(token|api[_-]?key|key|password|passwd|secret|authorization)=[^\s&,;"']{1,255}/gi, "$1=[REDACTED]"],
];

/** Removes credentials from any text the model or a log will read. */
export function redactCredentials(text: string): string {
  let out = text;
  for (const [pattern, replacement] of CREDENTIALS) out = out.replace(pattern, replacement);
  return out;
}

/** Strips markup that could be read as conversation structure, redacts secrets, caps length. */
export function sanitizeErrorText(text: string): string {
  let out = text.replace(ROLE_TAGS, "").replace(FENCE, "").replace(CDATA, "");
  out = redactCredentials(out).trim();
  if (out.length > MAX_ERROR_TEXT) out = `${out.slice(0, MAX_ERROR_TEXT - 3)}...`;
  return out;
}

/** The sanitised text of anything a handler threw. */
export function describeThrown(toolName: string, thrown: unknown): string {
  const detail = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : typeof thrown === "string" ? thrown : safeString(thrown);
  return sanitizeErrorText(`Tool '${toolName}' failed: ${detail}`);
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
