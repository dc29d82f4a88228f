/**
 * `$ref`s resolved by @apidevtools/json-schema-ref-parser, inside the spec only. Nothing is
 * fetched: a spec is outside input, and a `$ref` to a URL or a file would have the gateway
 * fetch what a stranger chose (SSRF) at conversion time. Such a `$ref`, and one that points at
 * nothing, is replaced by a marker before dereferencing, so the operations that reach it are
 * skipped, each naming the `$ref`, while the rest of the spec still converts.
 *
 * Circular schemas (a tree node whose children are nodes) become cycles of JavaScript objects
 * (`circular: true`); plain-schema.ts turns each cycle back into a local `$defs` reference when
 * it writes a tool's input schema. That mode also crawls each object once, where `"ignore"`
 * re-crawls objects reached along several paths.
 */
import { $RefParser, type ParserOptions } from "@apidevtools/json-schema-ref-parser";

import { UNRESOLVED_REF } from "./unresolved-ref.ts";

export { UNRESOLVED_REF };

export type ResolvedSpec =
  | {
      ok: true;
      doc: Record<string, unknown>;
      /** The `$ref` each resolved object was first reached by, to name `$defs` after it. */
      refNames: Map<object, string>;
    }
  | { ok: false; reason: string };

/**
 * Levels the dereferencer may recurse, following `$ref`s. It recurses once per level, so a
 * chain of thousands of schemas each holding the next would overflow the stack; past this it
 * stops with a RangeError, which refuses the spec. Whether a chain is met at its head (deep) or
 * its tail first (shallow, each step already resolved) depends on the spec's order, but no
 * input schema may nest past 64 levels anyway.
 */
export const MAX_REF_DEPTH = 300;

// The root's name is only a base for resolving; resolve.external off means nothing is read from it.
const ROOT_PATH = "openapi-spec.json";

/** `doc` (already a private copy: it is edited in place) with every followed `$ref` replaced by its target. */
export async function resolveSpecRefs(doc: Record<string, unknown>): Promise<ResolvedSpec> {
  const refNames = new Map<object, string>();
  const options: ParserOptions = {
    resolve: { external: false, file: false, http: false },
    dereference: {
      circular: true,
      maxDepth: MAX_REF_DEPTH,
      onDereference: (ref, value) => {
        if (!refNames.has(value)) refNames.set(value, ref);
      },
    },
  };
  try {
    const parser = new $RefParser();
    await parser.resolve(ROOT_PATH, doc, options);
    markUnresolved(doc, (ref) => (ref.startsWith("#/") ? parser.$refs.exists(ref, options) : false));
    const resolved = await parser.dereference(ROOT_PATH, doc, options);
    return { ok: true, doc: resolved as Record<string, unknown>, refNames };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError) {
      return {
        ok: false,
        reason: `the spec's $refs nest deeper than ${MAX_REF_DEPTH} levels (a chain of schemas each holding the next); no input schema may nest past 64`,
      };
    }
    return { ok: false, reason: `the spec's $refs could not be resolved: ${message.slice(0, 300)}` };
  }
}

/**
 * Replaces each `$ref` that `resolves` rejects with a marker naming it. Distinct `$ref`s are
 * checked once each, so the pass is linear in the document.
 */
function markUnresolved(doc: Record<string, unknown>, resolves: (ref: string) => boolean): void {
  const verdicts = new Map<string, boolean>();
  const pending: unknown[] = [doc];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (typeof value !== "object" || value === null) continue;
    const record = value as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === "string") {
      let ok = verdicts.get(ref);
      if (ok === undefined) {
        ok = resolves(ref);
        verdicts.set(ref, ok);
      }
      if (!ok) {
        for (const key of Object.keys(record)) delete record[key];
        record[UNRESOLVED_REF] = whyNot(ref);
      }
      continue;
    }
    for (const child of Object.values(record)) if (typeof child === "object" && child !== null) pending.push(child);
  }
}

function whyNot(ref: string): string {
  if (ref.startsWith("#/")) return `$ref '${shortRef(ref)}' does not resolve to anything in the spec`;
  if (ref.startsWith("#")) return `$ref '${shortRef(ref)}' is not a JSON pointer into the spec (only '#/...' $refs are followed)`;
  return `$ref '${shortRef(ref)}' points outside the spec; only $refs within it are followed (remote and file $refs are never fetched)`;
}

function shortRef(ref: string): string {
  return ref.length > 200 ? `${ref.slice(0, 200)}…` : ref;
}
