/**
 * Turns the arguments as the model sent them (a JSON string in OpenAI's shape, an object in
 * Anthropic's) into an object, or a failure that says where the JSON broke or where it nests
 * too deep or holds too many values (argument-shape.ts says why there are caps).
 */
import type { ToolFailure } from "../errors/tool-failure.ts";
import { MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_VALUES, type ShapeProblem, shapeProblem, textHasTooManyValues } from "./argument-shape.ts";
import { jsonErrorPosition } from "./json-error-position.ts";

export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; failure: ToolFailure };

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function shapeFailure(problem: ShapeProblem): ToolFailure {
  return "tooDeep" in problem
    ? { kind: "arguments_too_deep", path: problem.tooDeep, maxDepth: MAX_ARGUMENT_DEPTH }
    : { kind: "arguments_too_many_values", maxValues: MAX_ARGUMENT_VALUES };
}

/** Parses raw arguments; an empty string or a missing value means "no arguments". */
export function parseArguments(raw: unknown): ParsedArguments {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, args: {} };
    if (textHasTooManyValues(raw)) return { ok: false, failure: shapeFailure({ tooMany: true }) };
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
  const problem = shapeProblem(value);
  if (problem !== undefined) return { ok: false, failure: shapeFailure(problem) };
  return { ok: true, args: value as Record<string, unknown> };
}
