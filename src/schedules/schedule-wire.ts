/**
 * The wire shapes of /v1/schedules (snake_case, times as ISO strings) and the request body, one
 * zod schema each, so /openapi.json and the generated client document what the routes send.
 */
import { z } from "@hono/zod-openapi";
import type { ScheduleRow } from "./schedule-index.ts";
import { OVERLAP_POLICIES, SCHEDULE_STATUSES, type ScheduleView } from "./schedule-types.ts";

/** The fields a schedule is made of, shared with the `schedule` tool's `create` (tools/schedule.ts). */
export const SCHEDULE_FIELD_TEXT = {
  cron: 'A cron expression, 5 fields (minute hour day month weekday) or 6 with seconds first, read in `timezone`: "0 9 * * 1-5" is 09:00 on weekdays. Give `cron` or `every_seconds`.',
  every_seconds: "Fire every this many seconds from the schedule's creation, instead of `cron`.",
  timezone: 'The IANA time zone `cron` is read in, e.g. "Europe/Berlin"; UTC by default.',
  prompt: "What the agent is asked at each firing (the run's user message).",
  toolsets: "The toolsets the runs may use, within the key's own; all of the key's tools when absent.",
  overlap: "A firing while the previous firing's run still goes on: `skip` it (default), or `queue` it (at most one waits).",
  callback:
    "Also POST each firing's outcome to `url`, signed with the secret named `secret` (SCHEDULE_SECRET_<NAME>) like every toolgate callback; without it the outcome is only stored (the run).",
} as const;

export const ScheduleBody = z
  .object({
    name: z.string().min(1).max(120).optional().openapi({ description: "A name for people; the prompt's start by default." }),
    cron: z.string().min(1).max(200).optional().openapi({ description: SCHEDULE_FIELD_TEXT.cron, example: "0 9 * * 1-5" }),
    every_seconds: z
      .number()
      .int()
      .min(1)
      .max(366 * 86_400)
      .optional()
      .openapi({ description: SCHEDULE_FIELD_TEXT.every_seconds }),
    timezone: z.string().min(1).max(64).optional().openapi({ description: SCHEDULE_FIELD_TEXT.timezone, example: "Europe/Berlin" }),
    prompt: z.string().min(1).max(20_000).openapi({ description: SCHEDULE_FIELD_TEXT.prompt, example: "Summarise yesterday's failed tool calls." }),
    toolsets: z.array(z.string().min(1).max(128)).min(1).max(16).optional().openapi({ description: SCHEDULE_FIELD_TEXT.toolsets }),
    model: z.string().min(1).max(128).optional().openapi({ description: "A configured model's name (MODELS); the default model when absent." }),
    max_turns: z.number().int().min(1).optional().openapi({ description: "Model turns per run; default and ceiling RUN_MAX_TURNS." }),
    overlap: z.enum(OVERLAP_POLICIES).optional().openapi({ description: SCHEDULE_FIELD_TEXT.overlap }),
    callback: z
      .object({ url: z.string().min(1).max(2048), secret: z.string().min(1).max(128) })
      .optional()
      .openapi({ description: SCHEDULE_FIELD_TEXT.callback }),
    key_id: z.string().min(1).max(128).optional().openapi({ description: "Admins only: the key the runs act as; the caller's own key by default." }),
  })
  .openapi("ScheduleRequest");

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const FiringWireSchema = z.object({
  at: z.string(),
  outcome: z.enum(["started", "skipped", "queued", "not_started"]),
  run_id: z.string().nullable(),
  run_status: z.string().nullable(),
  late: z.boolean(),
  note: z.string().nullable(),
  callback: z.object({ status: z.enum(["pending", "delivered", "failed", "refused"]), detail: z.string().nullable(), attempts: z.number().int() }).nullable(),
});

const summaryFields = {
  id: z.string(),
  name: z.string(),
  key_id: z.string(),
  status: z.enum(SCHEDULE_STATUSES),
  status_reason: z.string().nullable().openapi({ description: "Why it is paused or stopped (a revoked key, ten failed runs in a row); null while active." }),
  next_fire_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
};

export const ScheduleSummarySchema = z.object(summaryFields).openapi("ScheduleSummary");

export const ScheduleWireSchema = z
  .object({
    ...summaryFields,
    created_by: z.string(),
    cron: z.string().nullable(),
    every_seconds: z.number().int().nullable(),
    timezone: z.string(),
    prompt: z.string(),
    toolsets: z.array(z.string()).nullable(),
    model: z.string().nullable(),
    max_turns: z.number().int().nullable(),
    overlap: z.enum(OVERLAP_POLICIES),
    callback: z.object({ url: z.string(), secret: z.string() }).nullable(),
    current_run_id: z.string().nullable(),
    queued_at: z.string().nullable(),
    consecutive_failures: z.number().int(),
    firings: z.array(FiringWireSchema).openapi({ description: "The newest firings first (up to 50): each started run, skipped or queued firing, and why." }),
  })
  .openapi("Schedule");

export type ScheduleWire = z.infer<typeof ScheduleWireSchema>;
export type ScheduleSummaryWire = z.infer<typeof ScheduleSummarySchema>;

/** A row of the index as GET /v1/schedules lists it. */
export function toWireSummary(row: ScheduleRow): ScheduleSummaryWire {
  return {
    id: row.id,
    name: row.name,
    key_id: row.key_id,
    status: row.status,
    status_reason: row.status_reason,
    next_fire_at: iso(row.next_fire_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The schedule as GET /v1/schedules/{id} shows it. */
export function toWireSchedule({ record: r, firings }: ScheduleView): ScheduleWire {
  return {
    id: r.id,
    name: r.name,
    key_id: r.keyId,
    created_by: r.createdBy,
    status: r.status,
    status_reason: r.statusReason,
    next_fire_at: iso(r.nextFireAt),
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
    cron: r.trigger.kind === "cron" ? r.trigger.cron : null,
    every_seconds: r.trigger.kind === "interval" ? r.trigger.everySeconds : null,
    timezone: r.timezone,
    prompt: r.prompt,
    toolsets: r.toolsets ?? null,
    model: r.model ?? null,
    max_turns: r.maxTurns ?? null,
    overlap: r.overlap,
    callback: r.delivery.kind === "webhook" ? { url: r.delivery.url, secret: r.delivery.secretName } : null,
    current_run_id: r.currentRunId,
    queued_at: iso(r.queuedAt),
    consecutive_failures: r.consecutiveFailures,
    firings: firings.map((f) => ({
      at: new Date(f.at).toISOString(),
      outcome: f.outcome,
      run_id: f.runId,
      run_status: f.runStatus,
      late: f.late,
      note: f.note,
      callback: f.callback === undefined ? null : { status: f.callback.status, detail: f.callback.detail, attempts: f.callback.attempts },
    })),
  };
}
