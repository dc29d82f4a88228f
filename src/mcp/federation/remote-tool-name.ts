/**
 * Registry names of remote tools: `mcp__<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_` (runs are not collapsed, as in the reference client), at most
 * 64 characters: the rule OpenAI and Anthropic both accept.
 */

const MAX_TOOL_NAME_CHARS = 64;

/** Replaces what providers reject in a name with `_`. */
function sanitizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * The registry name of `tool` on `server`. A name over 64 characters is cut and ends in 8 hex
 * digits of a hash of the full remote name, so two long names that share a prefix stay apart.
 *
 * @example remoteToolName("my-api", "list.items v2") // "mcp__my-api__list_items_v2"
 */
export function remoteToolName(server: string, tool: string): string {
  const full = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_CHARS) return full;
  const suffix = `_${fnv1a(tool).toString(16).padStart(8, "0")}`;
  return `${full.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
}

/** The toolset a server's tools join. */
export const remoteToolset = (server: string): string => `${REMOTE_TOOLSET_PREFIX}${server}`;

const REMOTE_TOOLSET_PREFIX = "mcp-";

/** The server whose toolset `toolset` is, or undefined for any other toolset. */
export const serverOfToolset = (toolset: string): string | undefined =>
  toolset.startsWith(REMOTE_TOOLSET_PREFIX) ? toolset.slice(REMOTE_TOOLSET_PREFIX.length) : undefined;

/** FNV-1a, 32 bits: synchronous, stable, enough to tell names apart (not a security hash). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
