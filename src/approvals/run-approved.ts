/**
 * How a session's object runs a call a person approved: through the whole pipeline, bound to the
 * approved arguments, with the requester's access as it is now (a key revoked, deleted or
 * narrowed since it asked gets PERMISSION_DENIED and the call does not run). The composition
 * root hands this to the Session object, which does not import the pipeline itself.
 */

import { outcomeOfFailure } from "../pipeline/outcome.ts";
import { openScope } from "../pipeline/request-scope.ts";
import { dispatchCall } from "../pipeline/run-call.ts";
import type { PipelineParts } from "../pipeline/types.ts";
import { requesterAccess } from "./requester-access.ts";
import type { RunApproved } from "./session-api.ts";

export function runApprovedWith(parts: PipelineParts): RunApproved {
  return async function runApproved(env, run) {
    // The catalog first (this object's isolate need not have served a request): the requester's
    // toolsets may name a remote server's toolset, which resolves only once its tools are registered.
    await parts.catalog.open(env);
    const requester = await requesterAccess(env, run.requestedBy);
    if (!requester.ok) {
      const refused = outcomeOfFailure(run.tool, run.callId, { kind: "access_denied", name: run.tool, rule: requester.rule, message: requester.message }, {});
      return { ...refused, policy: { decision: "deny", rule: requester.rule } };
    }
    const scope = await openScope(parts, { env, sessionId: run.sessionId, keyId: run.requestedBy, access: requester.access, waitUntil: run.waitUntil });
    return dispatchCall({ id: run.callId, name: run.tool, arguments: run.arguments }, scope, {
      dependencyResults: undefined,
      batch: undefined,
      approved: run.approved,
    });
  };
}
