/**
 * Names that come from outside (a remote MCP server's tools, an OpenAPI spec's operations) made
 * into registry names: every character outside `[A-Za-z0-9_-]` becomes `_`, and the whole is at
 * most 64 characters, the rule OpenAI and Anthropic both accept (TOOL_NAME_PATTERN).
 */

export const MAX_TOOL_NAME_CHARS = 64;

/** Replaces what providers reject in a name with `_` (runs are not collapsed, as in the MCP reference client). */
export function sanitizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `name` when it fits in 64 characters; otherwise cut, ending in 8 hex digits of a hash of
 * `key` (the full name as its source spells it), so two long names that share a prefix stay apart.
 *
 * @example fitToolName("a".repeat(80), "list.items") // 55 × "a", then "_" and 8 hex digits
 */
export function fitToolName(name: string, key: string): string {
  if (name.length <= MAX_TOOL_NAME_CHARS) return name;
  const suffix = `_${nameHash(key)}`;
  return `${name.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
}

/** 8 hex digits of a hash of `text`, for names that must differ from a taken one. */
export function nameHash(text: string): string {
  return fnv1a(text).toString(16).padStart(8, "0");
}

/** FNV-1a, 32 bits: synchronous, stable, enough to tell names apart (not a security hash). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
