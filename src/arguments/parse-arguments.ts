/**
 * Turns the arguments as the model sent them (a JSON string in OpenAI's shape, an object in
 * Anthropic's) into an object, or a failure that says where the JSON broke or where it nests
 * too deep (nesting-path.ts says why there is a cap).
 */
import type { ToolFailure } from "../errors/tool-failure.ts";
import { jsonErrorPosition } from "./json-error-position.ts";
import { MAX_ARGUMENT_DEPTH, pathPastDepth } from "./nesting-path.ts";

export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; failure: ToolFailure };

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Parses raw arguments; an empty string or a missing value means "no arguments". */
export function parseArguments(raw: unknown): ParsedArguments {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, args: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // V8 appends the whole input to some messages; the model already has it, so keep it short.
      const detail = message.replace(/, "[\s\S]*" is not valid JSON$/, "").slice(0, 300);
      const position = jsonErrorPosition(raw);
      return { ok: false, failure: { kind: "malformed_json", detail, ...(position === undefined ? {} : { position }) } };
    }
  }
  if (value === undefined || value === null) return { ok: true, args: {} };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, failure: { kind: "arguments_not_object", received: describeType(value) } };
  }
  const tooDeep = pathPastDepth(value, MAX_ARGUMENT_DEPTH);
  if (tooDeep !== undefined) return { ok: false, failure: { kind: "arguments_too_deep", path: tooDeep, maxDepth: MAX_ARGUMENT_DEPTH } };
  return { ok: true, args: value as Record<string, unknown> };
}
