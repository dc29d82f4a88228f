/**
 * The shapes of a schedule, types only: what its Schedule object stores (schedule-object.ts),
 * what the service and routes hand it, and one firing's entry in its log.
 */

/** When a schedule fires: a cron expression read in `timezone`, or every `everySeconds` from `anchorAt`. */
export type ScheduleTrigger = { kind: "cron"; cron: string } | { kind: "interval"; everySeconds: number };

/** Where a firing's outcome goes besides its run record: nowhere else, or a signed POST. */
export type ScheduleDelivery = { kind: "store" } | { kind: "webhook"; url: string; secretName: string };

/** What happens to a firing that comes while the previous firing's run still goes on. */
export const OVERLAP_POLICIES = ["skip", "queue"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/**
 * `active` fires; `paused` does not (a person paused it, or ten runs failed in a row);
 * `stopped` does not either: its key may no longer act (revoked, deleted), and resuming checks
 * the key again.
 */
export const SCHEDULE_STATUSES = ["active", "paused", "stopped"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** What a caller sets when creating a schedule (validated by schedule-spec.ts). */
export interface ScheduleSpec {
  name: string;
  trigger: ScheduleTrigger;
  /** IANA time zone the cron expression is read in (UTC by default). */
  timezone: string;
  prompt: string;
  toolsets?: string[];
  model?: string;
  maxTurns?: number;
  delivery: ScheduleDelivery;
  overlap: OverlapPolicy;
}

/** The schedule as its object stores it and GET /v1/schedules/{id} shows it. */
export interface ScheduleRecord extends ScheduleSpec {
  id: string;
  /** The key every firing's run acts as; the schedule is visible to it and to admins. */
  keyId: string;
  /** Who created it (an admin may create one acting as another key). */
  createdBy: string;
  status: ScheduleStatus;
  /** Why it is paused or stopped, in a sentence a person can act on; null while active. */
  statusReason: string | null;
  /** Interval schedules count from here (epoch ms). */
  anchorAt: number;
  /** The next firing time (epoch ms); null while not active. */
  nextFireAt: number | null;
  /**
   * A firing whose run is being started: written before the start, cleared after it, so an
   * instance that dies in between starts the same run id again, which finds the first.
   */
  firing: { at: number; runId: string; late: boolean } | null;
  /** The last firing's run while it has not ended (overlap is decided against it). */
  currentRunId: string | null;
  /** With `overlap: queue`, the one firing waiting for the current run to end. */
  queuedAt: number | null;
  consecutiveFailures: number;
  createdAt: number;
  updatedAt: number;
}

/** What became of one firing time, newest first in the log (SCHEDULE_FIRINGS_KEY). */
export interface FiringEntry {
  /** The firing time it was due (epoch ms). */
  at: number;
  outcome: "started" | "skipped" | "queued" | "not_started";
  /** started: the run; its status once it ended. */
  runId: string | null;
  runStatus: string | null;
  /** Set when it started later than due (the object was down), or why it was skipped / not started. */
  note: string | null;
  late: boolean;
  /** A webhook schedule's callback of this firing's outcome: pending until delivered or given up. */
  callback?: { status: "pending" | "delivered" | "failed" | "refused"; detail: string | null; attempts: number; nextAt: number | null };
}

/** A schedule with its firing log, as its object answers a read. */
export interface ScheduleView {
  record: ScheduleRecord;
  firings: FiringEntry[];
}

/** How a firing's run ended, as the Run object reports it (run-finish.ts). */
export interface RunEnd {
  runId: string;
  status: string;
}
