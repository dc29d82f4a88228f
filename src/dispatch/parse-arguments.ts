/**
 * Turns the arguments as the model sent them (a JSON string in OpenAI's shape, an object in
 * Anthropic's) into an object, or a failure that says where the JSON broke.
 */
import type { ToolFailure } from "../errors/tool-failure.ts";

export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; failure: ToolFailure };

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Position of a JSON syntax error, from V8's message ("... at position 12 ..."). */
function errorPosition(message: string): number | undefined {
  const match = /position (\d+)/.exec(message);
  return match?.[1] === undefined ? undefined : Number(match[1]);
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
      const position = errorPosition(message);
      // V8 appends the whole input to some messages; the model already has it, so keep it short.
      const detail = message.replace(/, "[\s\S]*" is not valid JSON$/, "").slice(0, 300);
      return { ok: false, failure: { kind: "malformed_json", detail, ...(position === undefined ? {} : { position }) } };
    }
  }
  if (value === undefined || value === null) return { ok: true, args: {} };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, failure: { kind: "arguments_not_object", received: describeType(value) } };
  }
  return { ok: true, args: value as Record<string, unknown> };
}
