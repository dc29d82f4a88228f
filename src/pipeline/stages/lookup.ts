/** Stage 2, look up: the tool by its registered name, with near misses the caller may use. */
import { closeMatches } from "../../catalog/close-matches.ts";
import type { CallState, RequestScope, StageResult } from "../types.ts";

export function lookup(call: CallState, scope: RequestScope): StageResult {
  const name = call.input.name;
  call.entry = scope.catalog.get(name);
  if (call.entry !== undefined) return undefined;
  // Suggest only tools the caller may use: a near miss must not reveal the others.
  const access = scope.access;
  const names = scope.catalog.names();
  const candidates = access === undefined ? names : names.filter((n) => access.decide(n).allowed);
  return { fail: { kind: "unknown_tool", name, closeMatches: closeMatches(name, candidates) } };
}
