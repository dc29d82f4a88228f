/**
 * Stage 7, pre-call hooks (plugins): a hook may block the call or replace its arguments, which
 * are validated again, so a hook cannot hand a handler what its schema refuses.
 */
import { validateArguments } from "../../arguments/validate-arguments.ts";
import type { CallState, RequestScope, StageResult } from "../types.ts";
import { callEvent } from "./call-event.ts";
import { entryOf } from "./entry-of.ts";

export async function preHooks(call: CallState, scope: RequestScope): Promise<StageResult> {
  const hooks = scope.parts.hooks;
  if (!hooks.hasPreCall(scope.env)) return undefined;
  const entry = entryOf(call);
  const pre = await hooks.runPreCall(callEvent(call, scope));
  if (pre.blocked) return { fail: { kind: "blocked_by_hook", name: entry.name, message: pre.message } };
  if (!pre.replaced) return undefined;
  const revalidated = await validateArguments(entry, pre.args);
  if (!revalidated.ok) return { fail: revalidated.failure };
  call.args = revalidated.args;
  return undefined;
}
