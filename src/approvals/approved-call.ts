/** The run of an approved call, as the Session object asks the pipeline for it. */
import type { CallOutcome } from "../pipeline/types.ts";
import type { ApprovalRow } from "./approval-row.ts";
import { interruptedOutcome } from "./approval-transitions.ts";
import type { RunApproved } from "./session-api.ts";

/**
 * Runs an approved call through the whole pipeline, bound to the approved arguments, with the
 * requester's access as it is now: a key revoked, deleted or narrowed since it asked gets
 * PERMISSION_DENIED and the call does not run.
 */
export async function runApprovedCall(
  runApproved: RunApproved,
  env: Env,
  row: ApprovalRow,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<CallOutcome> {
  try {
    return await runApproved(env, {
      tool: row.tool,
      callId: row.tool_call_id,
      sessionId: row.session_id,
      requestedBy: row.requested_by,
      arguments: JSON.parse(row.call_arguments) as Record<string, unknown>,
      approved: { approvalId: row.id, bindingSha256: row.binding_sha256 },
      waitUntil,
    });
  } catch (error) {
    // The pipeline never throws; this guards the bookkeeping around it all the same.
    console.error(`approval ${row.id}: run failed unexpectedly: ${String(error)}`);
    return interruptedOutcome(row);
  }
}
