/** Stage 5, coerce: what models commonly send (docs/coercion.md) becomes what the schema asks for. */
import { coerceArguments } from "../../arguments/coerce-arguments.ts";
import { fitsAsSent } from "../../arguments/fits-as-sent.ts";
import { parametersDeferred } from "../../registry/deferred-entry.ts";
import type { CallState, StageResult } from "../types.ts";
import { entryOf } from "./entry-of.ts";

export function coerce(call: CallState): StageResult {
  const entry = entryOf(call);
  // A cold isolate's first call of a tool would derive its JSON Schema only to find nothing to
  // repair (issue 33); the zod schema answers that for plain schemas (the validator builds it anyway).
  if (parametersDeferred(entry) && fitsAsSent(call.args, entry.schema)) {
    call.coercions = [];
    return undefined;
  }
  const coerced = coerceArguments(call.args, entry.parameters);
  call.coercions = coerced.coercions;
  call.args = coerced.value as Record<string, unknown>;
  return undefined;
}
