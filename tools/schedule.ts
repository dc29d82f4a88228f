/**
 * `schedule`, Hermes's `cronjob`: the agent schedules runs of itself. Create a schedule (a cron
 * expression in a time zone, or an interval; a prompt; toolsets; where results go), list the
 * caller's schedules, read one with its firing log, pause, resume or delete it. Each firing is
 * a durable agent run as the calling key (src/schedules/, docs/schedules.md). The tool acts for
 * its caller's own key only: acting as another key is the API's, for admins.
 */
import { z } from "zod";
import { MODEL_VARIABLES } from "../src/agent/model-config.ts";
import { describeRequestFailure } from "../src/http/request-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError, toolResult } from "../src/registry/tool-result.ts";
import { SCHEDULE_FIELD_TEXT } from "../src/schedules/schedule-field-text.ts";
import {
  createSchedule,
  deleteSchedule,
  listSchedules,
  pauseSchedule,
  resumeSchedule,
  type ScheduleFailure,
  type ScheduleViewer,
  viewSchedule,
} from "../src/schedules/schedule-service.ts";
import { OVERLAP_POLICIES } from "../src/schedules/schedule-types.ts";
import { toWireSchedule, toWireSummary } from "../src/schedules/schedule-wire.ts";
import { kvToolsetLookup } from "../src/toolsets/custom-toolsets.ts";

const ACTIONS = ["create", "list", "get", "pause", "resume", "delete"] as const;
/** Schedules a list answers with: the model needs the recent ones, not a key's whole history. */
const LISTED = 50;

const schema = () =>
  z
    .object({
      action: z.enum(ACTIONS).describe('"create" a schedule, "list" yours, "get" one with its recent firings, or "pause", "resume" or "delete" one.'),
      id: z.string().max(64).optional().describe("The schedule's id (from create or list), for get, pause, resume and delete."),
      name: z.string().min(1).max(120).optional().describe("For create: a short name for people."),
      prompt: z.string().min(1).max(20_000).optional().describe(`For create: ${SCHEDULE_FIELD_TEXT.prompt}`),
      cron: z.string().min(1).max(200).optional().describe(`For create: ${SCHEDULE_FIELD_TEXT.cron}`),
      every_seconds: z
        .number()
        .int()
        .min(1)
        .max(366 * 86_400)
        .optional()
        .describe(`For create: ${SCHEDULE_FIELD_TEXT.every_seconds}`),
      timezone: z.string().min(1).max(64).optional().describe(`For create: ${SCHEDULE_FIELD_TEXT.timezone}`),
      toolsets: z.array(z.string().min(1).max(128)).min(1).max(16).optional().describe(`For create: ${SCHEDULE_FIELD_TEXT.toolsets}`),
      overlap: z.enum(OVERLAP_POLICIES).optional().describe(`For create: ${SCHEDULE_FIELD_TEXT.overlap}`),
      callback: z
        .object({
          url: z.string().min(1).max(2048).describe("Where each firing's outcome is POSTed."),
          secret: z.string().min(1).max(128).describe("The name of the secret it is signed with, SCHEDULE_SECRET_<NAME>."),
        })
        .optional()
        .describe(`For create: ${SCHEDULE_FIELD_TEXT.callback}`),
    })
    .superRefine((args, ctx) => {
      if (args.action === "create" && args.prompt === undefined) ctx.addIssue({ code: "custom", path: ["prompt"], message: "prompt is required for create" });
      if (args.action !== "create" && args.action !== "list" && args.id === undefined)
        ctx.addIssue({ code: "custom", path: ["id"], message: `id is required for ${args.action}` });
    })
    .describe(
      "Schedules agent runs of yourself: at each firing (a cron expression or an interval) a new run gets `prompt`, with your key's tools. Manage your schedules with list, get, pause, resume and delete.",
    );

/** A schedule refusal as the model reads it: the API's sentence, code and issues. */
function refusal(failure: ScheduleFailure): string {
  const { body } = describeRequestFailure(failure);
  return toolError(body.error, { error_code: body.error_code, ...(body.issues === undefined ? {} : { issues: body.issues }) });
}

registry.register({
  name: "schedule",
  toolset: "schedules",
  emoji: "⏰",
  requiresEnv: MODEL_VARIABLES,
  example: { action: "create", name: "Daily digest", prompt: "Summarise yesterday's failed tool calls.", cron: "0 9 * * 1-5", timezone: "Europe/Berlin" },
  worstInputs: [
    {
      name: "a 20,000-character prompt with a 200-character cron of lists and 16 long toolset names",
      args: () => ({
        action: "create",
        prompt: "p".repeat(20_000),
        cron: `0 ${Array.from({ length: 24 }, (_, i) => i).join(",")} * * ${"1,2,3,4,5,".repeat(10).slice(0, 120)}`,
        timezone: "America/Argentina/ComodRivadavia",
        toolsets: Array.from({ length: 16 }, (_, i) => `t${i}`.padEnd(128, "x")),
      }),
    },
  ],
  schema,
  handler: async (args, ctx) => {
    const viewer: ScheduleViewer = { keyId: ctx.keyId, admin: false };
    const id = args.id ?? "";
    switch (args.action) {
      case "create": {
        const created = await createSchedule(ctx.env, viewer, { ...args, prompt: args.prompt ?? "" }, kvToolsetLookup(ctx.env.KV));
        return created.ok ? toolResult(toWireSchedule(created.value)) : refusal(created.failure);
      }
      case "list":
        return toolResult({ schedules: (await listSchedules(ctx.env, viewer, LISTED)).map(toWireSummary) });
      case "get": {
        const found = await viewSchedule(ctx.env, viewer, id);
        return found.ok ? toolResult(toWireSchedule(found.value)) : refusal(found.failure);
      }
      case "pause": {
        const paused = await pauseSchedule(ctx.env, viewer, id);
        return paused.ok ? toolResult(toWireSchedule(paused.value)) : refusal(paused.failure);
      }
      case "resume": {
        const resumed = await resumeSchedule(ctx.env, viewer, id);
        return resumed.ok ? toolResult(toWireSchedule(resumed.value)) : refusal(resumed.failure);
      }
      case "delete": {
        const deleted = await deleteSchedule(ctx.env, viewer, id);
        return deleted.ok ? toolResult({ deleted: id }) : refusal(deleted.failure);
      }
    }
  },
});
