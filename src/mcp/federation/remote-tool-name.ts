/**
 * Registry names of remote tools: `mcp__<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_` (runs are not collapsed, as in the reference client), at most
 * 64 characters: the rule OpenAI and Anthropic both accept.
 */
import { fitToolName, sanitizeNamePart } from "../../registry/fit-tool-name.ts";

/**
 * The registry name of `tool` on `server`. A name over 64 characters is cut and ends in 8 hex
 * digits of a hash of the full remote name, so two long names that share a prefix stay apart.
 *
 * @example remoteToolName("my-api", "list.items v2") // "mcp__my-api__list_items_v2"
 */
export function remoteToolName(server: string, tool: string): string {
  return fitToolName(`mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`, tool);
}

/** The toolset a server's tools join. */
export const remoteToolset = (server: string): string => `${REMOTE_TOOLSET_PREFIX}${server}`;

const REMOTE_TOOLSET_PREFIX = "mcp-";

/** The server whose toolset `toolset` is, or undefined for any other toolset. */
export const serverOfToolset = (toolset: string): string | undefined =>
  toolset.startsWith(REMOTE_TOOLSET_PREFIX) ? toolset.slice(REMOTE_TOOLSET_PREFIX.length) : undefined;
