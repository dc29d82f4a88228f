/** The call's tool, which stages after look-up may rely on. */
import type { ToolEntry } from "../../registry/types.ts";
import type { CallState } from "../types.ts";

export function entryOf(call: CallState): ToolEntry {
  if (call.entry === undefined) throw new Error(`stage ran before look-up found '${call.input.name}'`);
  return call.entry;
}
