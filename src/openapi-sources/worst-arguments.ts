/**
 * The worst inputs of an OpenAPI operation's tool (ToolSpec.worstInputs), for the hostile suite:
 * its example with every string at 1 MiB and every array at 10,000 items, so argument
 * validation, the pattern check on RE2 (check-patterns.ts) and request building (path and query
 * encoding, a body's serialisation) all run at sizes no model would send. Eight strings at most
 * are grown, so the request stays under the door's body limit the suite raises to 32 MiB.
 */
import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import type { WorstInput } from "../registry/worst-input.ts";

const STRING_CHARS = 1024 * 1024;
const ARRAY_ITEMS = 10_000;
const GROWN_STRINGS = 8;

export function worstInputsOf(example: Record<string, unknown> | undefined): WorstInput[] {
  return [
    {
      name: "its example with every string at 1 MiB and every array at 10,000 items, checked against the spec before anything is sent",
      args: () => {
        const budget = { strings: GROWN_STRINGS };
        const grown = grow(example ?? {}, budget);
        return isPlainRecord(grown) ? grown : {};
      },
    },
  ];
}

function grow(value: unknown, budget: { strings: number }): unknown {
  if (typeof value === "string") {
    if (budget.strings === 0) return value;
    budget.strings--;
    return value.padEnd(STRING_CHARS, value === "" ? "x" : value);
  }
  // Copies of the item as it was, not grown: 10,000 strings of 1 MiB would be 10 GiB.
  if (Array.isArray(value)) return value.length === 0 ? value : Array.from({ length: ARRAY_ITEMS }, () => value[0]);
  if (isPlainRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, grow(item, budget)]));
  return value;
}
