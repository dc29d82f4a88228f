/** Stage 5, coerce: what models commonly send (docs/coercion.md) becomes what the schema asks for. */
import { coerceArguments } from "../../arguments/coerce-arguments.ts";
import type { CallState, StageResult } from "../types.ts";
import { entryOf } from "./entry-of.ts";

export function coerce(call: CallState): StageResult {
  const coerced = coerceArguments(call.args, entryOf(call).parameters);
  call.coercions = coerced.coercions;
  call.args = coerced.value as Record<string, unknown>;
  return undefined;
}
