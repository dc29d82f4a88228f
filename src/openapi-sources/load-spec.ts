/**
 * A spec's text made into a document: JSON or YAML, OpenAPI 3.0, 3.1 or Swagger 2.0. The text
 * comes from outside (an admin's URL at run time, a pinned URL at build time), so each way it
 * can be too big or hostile is refused here with a reason, before any later step walks it.
 */
import { parse as parseYaml } from "yaml";

import { MAX_SPEC_CHARS } from "./max-spec-chars.ts";

export { MAX_SPEC_CHARS };

/**
 * Aliases a YAML spec may resolve, weighted by the size of what each one repeats (the `yaml`
 * package's own measure). Real specs use `$ref`, not anchors, to share; a handful of anchors
 * fits, while "billion laughs" (aliases of aliases, each level multiplying the last) is refused
 * at its first levels instead of expanding exponentially in memory.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

export type LoadedSpec = { ok: true; doc: Record<string, unknown> } | { ok: false; reason: string };

/**
 * The spec document in `text`, or why it is not one we accept.
 *
 * @example
 * await loadSpec('{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}'); // { ok: true, doc }
 */
export async function loadSpec(text: string): Promise<LoadedSpec> {
  if (text.length > MAX_SPEC_CHARS) {
    return {
      ok: false,
      reason: `the spec is ${megabytes(text.length)} MB; at most ${megabytes(MAX_SPEC_CHARS)} MB is accepted (trim it to the operations you need)`,
    };
  }
  const parsed = parseText(text);
  if (!parsed.ok) return parsed;
  const doc = parsed.value;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return { ok: false, reason: `the spec must be a JSON or YAML object (an OpenAPI document); it is ${describe(doc)}` };
  }
  const version = specVersion(doc as Record<string, unknown>);
  if (version === undefined) {
    return {
      ok: false,
      reason: 'the document is not OpenAPI 3.0, 3.1 or Swagger 2.0: it needs `openapi: 3.0.x` or `3.1.x`, or `swagger: "2.0"`, at its top level',
    };
  }
  return { ok: true, doc: doc as Record<string, unknown> };
}

/** `2.0`, `3.0.x` or `3.1.x` as the document declares it, or undefined for anything else. */
export function specVersion(doc: Record<string, unknown>): string | undefined {
  if (doc.swagger === "2.0") return "2.0";
  const { openapi } = doc;
  return typeof openapi === "string" && /^3\.[01]\.\d+$/.test(openapi) ? openapi : undefined;
}

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

// JSON first: it is what most specs are, and V8's parser is both faster and iterative. YAML is
// tried when the text is not JSON (YAML flow style also starts with `{`); when both fail, the
// reason quotes the parser the text looked written for.
function parseText(text: string): Parsed {
  const looksLikeJson = text.trimStart().startsWith("{");
  let jsonError: unknown;
  if (looksLikeJson) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      jsonError = error;
    }
  }
  try {
    return { ok: true, value: parseYaml(text, { maxAliasCount: MAX_YAML_ALIAS_COUNT, prettyErrors: false }) };
  } catch (error) {
    const message = messageOf(error);
    if (/alias/i.test(message)) {
      return { ok: false, reason: `the spec is YAML whose anchors and aliases expand too far (${message}); share schemas with $ref instead` };
    }
    if (looksLikeJson) return { ok: false, reason: `the spec looks like JSON but does not parse: ${messageOf(jsonError)}` };
    return { ok: false, reason: `the spec is neither JSON nor YAML: ${message}` };
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "empty";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}

// A parser's message can quote a long stretch of the input; the reason stays readable.
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

function megabytes(chars: number): string {
  return (chars / 1024 / 1024).toFixed(1);
}
