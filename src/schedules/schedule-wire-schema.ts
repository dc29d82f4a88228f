/**
 * The zod schemas of /v1/schedules' request body and replies, apart from schedule-wire.ts: only
 * the routes (loaded at their first request) need them, while the wire form is built by the
 * `schedule` tool as well, which is imported at start-up (issue 33).
 */
import { z } from "@hono/zod-openapi";
import { SCHEDULE_FIELD_TEXT } from "./schedule-field-text.ts";
import { OVERLAP_POLICIES, SCHEDULE_STATUSES } from "./schedule-types.ts";

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
