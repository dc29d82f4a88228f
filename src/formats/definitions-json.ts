/**
 * The JSON text of definition lists, built from per-tool pieces cached by entry. A 500-tool
 * list is about 450 KB and serialising it whole on every request cost 3 ms; a registered entry
 * never changes (re-registration makes a new object), so its serialised definition in each
 * format is computed once. Tools with dynamic overrides are serialised fresh every time, since
 * their definition is decided per request.
 */
import { withOverrides } from "../registry/definitions.ts";
import type { ToolEntry } from "../registry/types.ts";
import { type DefinitionFormat, formatDefinitions } from "./tool-definitions.ts";

const pieces = new WeakMap<ToolEntry, Map<DefinitionFormat, string>>();

function pieceFor(entry: ToolEntry, format: DefinitionFormat, env: Env): string {
  const serialise = () => JSON.stringify(formatDefinitions([withOverrides(entry, env)], format)[0]);
  if (entry.dynamicSchemaOverrides !== undefined) return serialise();
  let byFormat = pieces.get(entry);
  if (byFormat === undefined) {
    byFormat = new Map();
    pieces.set(entry, byFormat);
  }
  let piece = byFormat.get(format);
  if (piece === undefined) {
    piece = serialise();
    byFormat.set(format, piece);
  }
  return piece;
}

/** Each entry's definition as JSON text, in the entries' order (an agent run joins them into its model requests). */
export function definitionPieces(entries: readonly ToolEntry[], format: DefinitionFormat, env: Env): string[] {
  return entries.map((entry) => pieceFor(entry, format, env));
}

/**
 * The last list joined, per format: a listing asked again with the same entries (the same key
 * and toolset, nothing re-registered) reuses the text instead of joining a thousand pieces into
 * a new 1.7 MB string, which cost about as much as the listing's other work together
 * (docs/openapi-sources.md, "Measured"). Checking that the entries are the same is one identity
 * comparison per entry.
 */
const lastJoined = new Map<DefinitionFormat, { entries: readonly ToolEntry[]; text: string }>();

function sameEntries(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `[def, def, ...]` as JSON text, in the entries' order. */
export function definitionsJson(entries: readonly ToolEntry[], format: DefinitionFormat, env: Env): string {
  const dynamic = entries.some((entry) => entry.dynamicSchemaOverrides !== undefined);
  const last = lastJoined.get(format);
  if (!dynamic && last !== undefined && sameEntries(last.entries, entries)) return last.text;
  const text = `[${definitionPieces(entries, format, env).join(",")}]`;
  if (!dynamic) lastJoined.set(format, { entries: [...entries], text });
  return text;
}
