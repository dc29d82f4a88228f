/**
 * A curated endpoint's names (toolsets/tool-aliases.ts) at the MCP door: tools/list presents
 * aliases and their descriptions, tools/call maps an alias to the real tool before anything else
 * sees the call, so policy, approvals and rate limits decide on the real name.
 *
 * A renamed tool's own name is not callable there: the endpoint lists one name per tool, and a
 * second, unlisted one would let a client step around the surface the toolset's author curated
 * (and split one tool's audit trail across two names).
 */
import { definitionPieces } from "../../formats/definitions-json.ts";
import type { AllowedTools } from "../../pipeline/types.ts";
import type { ToolEntry } from "../../registry/types.ts";
import { RPC_INVALID_PARAMS, type RpcError } from "./json-rpc.ts";

/** tools/list's `tools` array as JSON text, each aliased tool under its presented name and description. */
export function presentedToolsJson(entries: readonly ToolEntry[], allowed: AllowedTools | undefined, env: Env): string {
  const pieces = definitionPieces(entries, "mcp", env);
  const presented = allowed?.aliases?.presented;
  if (presented === undefined) return `[${pieces.join(",")}]`;
  return `[${pieces
    .map((piece, i) => {
      const alias = presented.get(entries[i]?.name ?? "");
      if (alias === undefined) return piece;
      // Only aliased tools pay for a parse: every other piece is the cached serialisation.
      const definition = JSON.parse(piece) as { name: string; description?: string };
      definition.name = alias.name;
      if (alias.description !== undefined) definition.description = alias.description;
      return JSON.stringify(definition);
    })
    .join(",")}]`;
}

/** The real tool a tools/call names, and the alias it was called by (when one), or the refusal. */
export type CalledTool = { tool: string; calledAs: string | undefined } | { error: RpcError };

/** Resolves the name a client called at this endpoint. */
export function calledTool(name: string, allowed: AllowedTools | undefined): CalledTool {
  const aliases = allowed?.aliases;
  if (aliases === undefined) return { tool: name, calledAs: undefined };
  const real = aliases.toReal.get(name);
  if (real !== undefined) return { tool: real, calledAs: name };
  const presented = aliases.presented.get(name);
  if (presented !== undefined && presented.name !== name) {
    const message = `Unknown tool: '${name}' is not a tool of toolset '${allowed?.toolset}'. This endpoint presents it as '${presented.name}'; call that name (tools/list shows it).`;
    return { error: { code: RPC_INVALID_PARAMS, message } };
  }
  return { tool: name, calledAs: undefined };
}
