/**
 * Whether a key reaches an MCP prompt or resource (src/registry/mcp-content.ts). The same two
 * layers as tools (tool-access.ts), on the entry's toolset and name:
 *
 * 1. Toolsets: a key limited to toolsets reaches an entry only when it names the entry's toolset
 *    itself; a toolset that merely includes it does not count (prompts and resources are not in
 *    toolset resolutions, so this fails closed). An unrestricted key, or one with `all`, reaches
 *    everything but fixtures; on `/mcp/{toolset}`, only that toolset's entries are offered.
 * 2. Policy: the key's whitelist or deny globs on the entry's name (`mcp__github__*` covers a
 *    remote server's prompts as it covers its tools).
 */
import type { Principal } from "../auth/principal.ts";
import { ALL_TOOLSETS } from "../toolsets/resolve.ts";
import { compileGlob } from "./glob.ts";

export interface OfferedEntry {
  name: string;
  toolset: string;
  fixture?: boolean;
}

/** One key's reach over prompts and resources, with its patterns compiled once per request. */
export type ContentAccess = (entry: OfferedEntry) => boolean;

/** `requestToolset`: the toolset of `/mcp/{toolset}`, when the request names one. */
export function createContentAccess(principal: Principal, requestToolset: string | undefined): ContentAccess {
  const named = new Set(principal.toolsets ?? []);
  const unrestricted = principal.toolsets === null || principal.toolsets.some((name) => ALL_TOOLSETS.has(name));
  const tests = principal.policy.patterns.map(compileGlob);
  const whitelist = principal.policy.mode === "whitelist";
  return function mayReach(entry) {
    if (requestToolset !== undefined && entry.toolset !== requestToolset) return false;
    const inToolsets = named.has(entry.toolset) || (unrestricted && entry.fixture !== true);
    if (!inToolsets) return false;
    const matched = tests.some((test) => test(entry.name));
    return whitelist ? matched : !matched;
  };
}
