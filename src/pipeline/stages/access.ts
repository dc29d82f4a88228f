/**
 * Stage 3, access: the calling key's policy (decided once per tool per request, and named in
 * the outcome for the audit log), then the request's toolset.
 */
import type { CallState, RequestScope, StageResult } from "../types.ts";

export function checkAccess(call: CallState, scope: RequestScope): StageResult {
  const name = call.input.name;
  if (scope.access !== undefined) {
    const decision = scope.access.decide(name);
    call.policy = { decision: decision.allowed ? "allow" : "deny", rule: decision.rule };
    if (!decision.allowed) return { fail: { kind: "access_denied", name, rule: decision.rule, message: decision.message } };
  }
  const allowed = scope.allowedTools;
  if (allowed !== undefined && !allowed.names.has(name)) return { fail: { kind: "outside_toolset", name, toolset: allowed.toolset } };
  return undefined;
}
