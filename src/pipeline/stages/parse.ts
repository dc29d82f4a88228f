/** Stage 1, parse: the model's raw arguments become an object, once per call. */
import { parseArguments } from "../../arguments/parse-arguments.ts";
import type { CallState, StageResult } from "../types.ts";

export function parse(call: CallState): StageResult {
  const parsed = parseArguments(call.input.arguments);
  if (!parsed.ok) return { fail: parsed.failure };
  call.parsed = true;
  call.sentArgs = parsed.args;
  call.args = parsed.args;
  return undefined;
}
