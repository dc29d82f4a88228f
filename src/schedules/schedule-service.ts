/**
 * What POST/GET/DELETE /v1/schedules and the `schedule` tool share: a schedule created, read,
 * paused, resumed or deleted on behalf of a caller. A schedule is visible to the key its runs act
 * as and to admins; to any other key it does not exist. Only an admin may create one acting as
 * another key.
 */
import { currentPrincipal } from "../approvals/requester-access.ts";
import type { RequestFailure } from "../http/request-failure.ts";
import type { CustomToolsetLookup } from "../toolsets/resolve.ts";
import { countSchedules, listScheduleRows, type ScheduleRow } from "./schedule-index.ts";
import { scheduleSettings } from "./schedule-settings.ts";
import { checkScheduleInput, type ScheduleInput } from "./schedule-spec.ts";
import { SCHEDULE_ID, scheduleStub } from "./schedule-stub.ts";
import { nextFiring } from "./schedule-timing.ts";
import type { ScheduleRecord, ScheduleView } from "./schedule-types.ts";

/** Who asks: a key, and whether it is an admin's (who sees every schedule). */
export interface ScheduleViewer {
  keyId: string;
  admin: boolean;
}

export type ScheduleFailure = Extract<RequestFailure, { kind: "invalid_request" | "unknown_schedule" | "conflict" }>;
/** A value, or the failure of one of the kinds `K`. */
export type ScheduleResult<T, K extends ScheduleFailure["kind"] = "unknown_schedule"> =
  | { ok: true; value: T }
  | { ok: false; failure: Extract<ScheduleFailure, { kind: K }> };

const invalid = (path: string, message: string): { ok: false; failure: Extract<ScheduleFailure, { kind: "invalid_request" }> } => ({
  ok: false,
  failure: { kind: "invalid_request", issues: [{ path, message }] },
});

/** Creates a schedule acting as the caller's key (an admin: `key_id`'s, when given). */
export async function createSchedule(
  env: Env,
  viewer: ScheduleViewer,
  input: ScheduleInput & { key_id?: string | undefined },
  lookup: CustomToolsetLookup,
): Promise<ScheduleResult<ScheduleView, "invalid_request" | "conflict">> {
  const keyId = input.key_id ?? viewer.keyId;
  if (keyId !== viewer.keyId) {
    if (!viewer.admin) return invalid("key_id", "only an admin may create a schedule acting as another key; leave key_id out to act as your own");
    const target = await currentPrincipal(env, keyId);
    if (!("keyId" in target)) return invalid("key_id", `key ${keyId} may not act (${target.rule})`);
  }
  const now = Date.now();
  const checked = await checkScheduleInput(env, input, keyId, lookup, now);
  if (!checked.ok) return { ok: false, failure: { kind: "invalid_request", issues: checked.issues } };
  const cap = scheduleSettings(env).perKey;
  if ((await countSchedules(env.DB, keyId)) >= cap)
    return {
      ok: false,
      failure: { kind: "conflict", message: `Key ${keyId} has ${cap} schedules, the most it may have (SCHEDULES_PER_KEY); delete one first.` },
    };
  const id = crypto.randomUUID();
  const { spec } = checked;
  const record: ScheduleRecord = {
    ...spec,
    id,
    keyId,
    createdBy: viewer.keyId,
    status: "active",
    statusReason: null,
    anchorAt: now,
    nextFireAt: nextFiring(spec.trigger, spec.timezone, now, now),
    firing: null,
    currentRunId: null,
    queuedAt: null,
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
  };
  const created = (await scheduleStub(env, id).create(record)) as ScheduleRecord;
  return { ok: true, value: { record: created, firings: [] } };
}

/** The schedules the caller may see, newest first. */
export function listSchedules(env: Env, viewer: ScheduleViewer, limit: number): Promise<ScheduleRow[]> {
  return listScheduleRows(env.DB, viewer.admin ? undefined : viewer.keyId, limit);
}

/** The schedule with its firing log, if the caller may see it. */
export async function viewSchedule(env: Env, viewer: ScheduleViewer, id: string): Promise<ScheduleResult<ScheduleView>> {
  const view = SCHEDULE_ID.test(id) ? ((await scheduleStub(env, id).view()) as ScheduleView | undefined) : undefined;
  if (view === undefined || !(viewer.admin || view.record.keyId === viewer.keyId)) return { ok: false, failure: { kind: "unknown_schedule", id } };
  return { ok: true, value: view };
}

/** Pauses a schedule the caller may see. */
export async function pauseSchedule(env: Env, viewer: ScheduleViewer, id: string): Promise<ScheduleResult<ScheduleView>> {
  const seen = await viewSchedule(env, viewer, id);
  if (!seen.ok) return seen;
  const reason = `Paused by ${viewer.keyId} at ${new Date().toISOString()}; resume to fire again.`;
  const view = (await scheduleStub(env, id).pause(reason)) as ScheduleView | undefined;
  return view === undefined ? { ok: false, failure: { kind: "unknown_schedule", id } } : { ok: true, value: view };
}

/** Resumes a paused or stopped schedule; a stopped one whose key still may not act stays stopped (409). */
export async function resumeSchedule(env: Env, viewer: ScheduleViewer, id: string): Promise<ScheduleResult<ScheduleView, "unknown_schedule" | "conflict">> {
  const seen = await viewSchedule(env, viewer, id);
  if (!seen.ok) return seen;
  const resumed = (await scheduleStub(env, id).resume()) as { ok: true; view: ScheduleView } | { ok: false; reason: string } | undefined;
  if (resumed === undefined) return { ok: false, failure: { kind: "unknown_schedule", id } };
  return resumed.ok ? { ok: true, value: resumed.view } : { ok: false, failure: { kind: "conflict", message: resumed.reason } };
}

/** Deletes a schedule the caller may see; a run it started goes on to its end. */
export async function deleteSchedule(env: Env, viewer: ScheduleViewer, id: string): Promise<ScheduleResult<null>> {
  const seen = await viewSchedule(env, viewer, id);
  if (!seen.ok) return seen;
  await scheduleStub(env, id).remove();
  return { ok: true, value: null };
}
