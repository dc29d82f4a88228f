/** Stage 6, validate: the tool's zod schema, every bad field reported at once. */
import { validateArguments } from "../../arguments/validate-arguments.ts";
import type { CallState, StageResult } from "../types.ts";
import { entryOf } from "./entry-of.ts";

export async function validate(call: CallState): Promise<StageResult> {
  const validated = await validateArguments(entryOf(call), call.args);
  if (!validated.ok) return { fail: validated.failure };
  call.args = validated.args;
  return undefined;
}
