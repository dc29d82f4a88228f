/** Stage 4, availability: missing variables, a failed check or a gate make the tool unavailable. */
import type { CallState, RequestScope, StageResult } from "../types.ts";
import { entryOf } from "./entry-of.ts";

export function checkAvailability(call: CallState, scope: RequestScope): StageResult | Promise<StageResult> {
  const entry = entryOf(call);
  const cache = scope.parts.availability;
  // Known without I/O for most tools (no check, or a fresh result): no promise on the hot path.
  const known = cache.known(entry, scope.env);
  if (known !== undefined)
    return known.available ? undefined : { fail: { kind: "unavailable", name: entry.name, reason: known.reason ?? "its availability check failed" } };
  return cache
    .of(entry, scope.env)
    .then((state) =>
      state.available ? undefined : { fail: { kind: "unavailable", name: entry.name, reason: state.reason ?? "its availability check failed" } },
    );
}
