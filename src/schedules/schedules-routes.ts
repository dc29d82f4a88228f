/**
 * The schedules API: POST /v1/schedules (201), GET /v1/schedules, GET /v1/schedules/{id},
 * POST /v1/schedules/{id}/pause and /resume, DELETE /v1/schedules/{id}. A schedule is visible to
 * the key its runs act as and to admins; to any other key it does not exist (404).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toolsetLookupOf } from "../http/access.ts";
import { failureResponse } from "../http/request-failure.ts";
import { errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { createSchedule, deleteSchedule, listSchedules, pauseSchedule, resumeSchedule, type ScheduleViewer, viewSchedule } from "./schedule-service.ts";
import { toWireSchedule, toWireSummary } from "./schedule-wire.ts";
import { ScheduleBody, ScheduleSummarySchema, ScheduleWireSchema } from "./schedule-wire-schema.ts";

const IdParam = z.object({ id: z.string().min(1).max(64) });
const scheduleContent = { "application/json": { schema: ScheduleWireSchema } };

const postSchedule = createRoute({
  method: "post",
  path: "/v1/schedules",
  summary: "Create a schedule of agent runs",
  description:
    "Each firing starts a durable run (as POST /v1/runs does) with the prompt, as the caller's key. Refused when it would fire more often than SCHEDULE_MIN_INTERVAL_SECONDS.",
  request: { body: { required: true, content: { "application/json": { schema: ScheduleBody } } } },
  responses: { 201: { description: "Created.", content: scheduleContent }, ...errorResponses(400, 409, 415) },
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/schedules",
  summary: "Schedules, newest first",
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) },
  responses: {
    200: {
      description: "The schedules this key may see (an admin: all), with their status and why.",
      content: { "application/json": { schema: z.object({ schedules: z.array(ScheduleSummarySchema) }) } },
    },
    ...errorResponses(400),
  },
});

const getSchedule = createRoute({
  method: "get",
  path: "/v1/schedules/{id}",
  summary: "A schedule with its firing log",
  request: { params: IdParam },
  responses: { 200: { description: "The schedule.", content: scheduleContent }, ...errorResponses(404) },
});

const pauseRoute = createRoute({
  method: "post",
  path: "/v1/schedules/{id}/pause",
  summary: "Pause a schedule",
  request: { params: IdParam },
  responses: { 200: { description: "The schedule, paused.", content: scheduleContent }, ...errorResponses(404) },
});

const resumeRoute = createRoute({
  method: "post",
  path: "/v1/schedules/{id}/resume",
  summary: "Resume a paused or stopped schedule",
  description: "It fires again from its next firing time after now. A schedule stopped because its key may no longer act stays stopped (409) until it may.",
  request: { params: IdParam },
  responses: { 200: { description: "The schedule, active.", content: scheduleContent }, ...errorResponses(404, 409) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/v1/schedules/{id}",
  summary: "Delete a schedule",
  description: "A run it started goes on to its end.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted." }, ...errorResponses(404) },
});

const viewerOf = (c: Context<AppEnv>): ScheduleViewer => {
  const principal = c.get("principal");
  return { keyId: principal.keyId, admin: principal.role === "admin" };
};

export const schedulesRoutes = new OpenAPIHono<AppEnv>()
  .openapi(postSchedule, async (c) => {
    const created = await createSchedule(c.env, viewerOf(c), c.req.valid("json"), toolsetLookupOf(c));
    if (!created.ok) return failureResponse(c, created.failure);
    return c.json(toWireSchedule(created.value), 201);
  })
  .openapi(listRoute, async (c) => {
    const rows = await listSchedules(c.env, viewerOf(c), c.req.valid("query").limit);
    return c.json({ schedules: rows.map(toWireSummary) }, 200);
  })
  .openapi(getSchedule, async (c) => {
    const found = await viewSchedule(c.env, viewerOf(c), c.req.valid("param").id);
    if (!found.ok) return failureResponse(c, found.failure);
    return c.json(toWireSchedule(found.value), 200);
  })
  .openapi(pauseRoute, async (c) => {
    const paused = await pauseSchedule(c.env, viewerOf(c), c.req.valid("param").id);
    if (!paused.ok) return failureResponse(c, paused.failure);
    return c.json(toWireSchedule(paused.value), 200);
  })
  .openapi(resumeRoute, async (c) => {
    const resumed = await resumeSchedule(c.env, viewerOf(c), c.req.valid("param").id);
    if (!resumed.ok) return failureResponse(c, resumed.failure);
    return c.json(toWireSchedule(resumed.value), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const deleted = await deleteSchedule(c.env, viewerOf(c), c.req.valid("param").id);
    if (!deleted.ok) return failureResponse(c, deleted.failure);
    return c.body(null, 204);
  });
