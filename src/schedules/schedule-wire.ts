/**
 * The wire shapes of /v1/schedules (snake_case, times as ISO strings), built from a schedule; their
 * zod schemas, which /openapi.json and the generated client document, are in schedule-wire-schema.ts.
 */
import type { z } from "@hono/zod-openapi";
import type { ScheduleRow } from "./schedule-index.ts";
import type { ScheduleView } from "./schedule-types.ts";
import type { ScheduleSummarySchema, ScheduleWireSchema } from "./schedule-wire-schema.ts";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

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
