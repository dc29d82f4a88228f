/**
 * Pinned definitions of remote tools (the "rug pull" defence users of MCP gateways ask for): the
 * SHA-256 of each tool's name, description and input schema is recorded the first time it is
 * seen; a later list with a different hash marks the tool changed until an admin accepts the
 * new definition. Stored per server under `mcp:pins:<server>` (docs/storage.md).
 */
import { canonicalJson } from "../../audit/canonical-json.ts";
import { sha256Hex } from "../../crypto/sha256.ts";
import { mcpPinsKey } from "../../storage/keys.ts";
import type { RemoteTool } from "../client/mcp-client.ts";

/** What the hash covers, kept so an admin can compare the pinned and the changed one before accepting. */
export interface PinnedDefinition {
  name: string;
  description: string;
  inputSchema: unknown;
}

export interface ToolPin {
  /** SHA-256 (hex) of the accepted definition. */
  sha256: string;
  pinnedAt: number;
  /** The accepted definition; absent on pins written before definitions were kept. */
  definition?: PinnedDefinition;
  /** A definition seen since that differs from the accepted one. */
  changed?: { sha256: string; seenAt: number; definition?: PinnedDefinition };
}

/** Remote tool name → its pin. */
export type ServerPins = Record<string, ToolPin>;

/** What a model is shown of a remote tool: its name, description and schema. */
function definitionOf(tool: RemoteTool): PinnedDefinition {
  return { name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema };
}

/** The hash of that definition, key order ignored. */
function definitionHash(tool: RemoteTool): string {
  return sha256Hex(canonicalJson(definitionOf(tool)));
}

export async function readPins(kv: KVNamespace, server: string): Promise<ServerPins> {
  return (await kv.get<ServerPins>(mcpPinsKey(server), "json")) ?? {};
}

export async function writePins(kv: KVNamespace, server: string, pins: ServerPins): Promise<void> {
  await kv.put(mcpPinsKey(server), JSON.stringify(pins));
}

export async function deletePins(kv: KVNamespace, server: string): Promise<void> {
  await kv.delete(mcpPinsKey(server));
}

/**
 * Compares listed tools with their pins: pins new tools, marks changed ones, and clears a mark
 * when the server went back to the accepted definition. Returns the updated pins, the tools
 * newly found changed (for the audit log) and whether anything needs writing.
 */
export async function comparePins(
  pins: ServerPins,
  tools: readonly RemoteTool[],
  now: number,
): Promise<{ pins: ServerPins; newlyChanged: string[]; dirty: boolean }> {
  const next: ServerPins = { ...pins };
  const newlyChanged: string[] = [];
  let dirty = false;
  for (const tool of tools) {
    const hash = definitionHash(tool);
    const pin = next[tool.name];
    if (pin === undefined) {
      next[tool.name] = { sha256: hash, pinnedAt: now, definition: definitionOf(tool) };
      dirty = true;
    } else if (pin.sha256 === hash) {
      if (pin.changed !== undefined) {
        next[tool.name] = { sha256: pin.sha256, pinnedAt: pin.pinnedAt, ...(pin.definition === undefined ? {} : { definition: pin.definition }) };
        dirty = true;
      }
    } else if (pin.changed?.sha256 !== hash) {
      next[tool.name] = { ...pin, changed: { sha256: hash, seenAt: now, definition: definitionOf(tool) } };
      newlyChanged.push(tool.name);
      dirty = true;
    }
  }
  return { pins: next, newlyChanged, dirty };
}
