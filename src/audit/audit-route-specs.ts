/**
 * The audit routes' OpenAPI definitions (audit-routes.ts serves them): their query schemas, the
 * limits those schemas and the handlers enforce, and the documented responses.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../http/schemas.ts";
import { decodeCursor, decodeShardCursor, parseTimeParam, TIME_PARAM_HINT } from "./audit-params.ts";
import { AUDIT_STATUSES } from "./audit-record.ts";
import { AuditRecordWireSchema, CallStatsWireSchema } from "./audit-wire-schema.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
/** The longest window one export request streams: a month of days, each a D1 query and an R2 listing at least. */
export const MAX_EXPORT_DAYS = 31;
/**
 * The longest stats window: every statement ranks each of the window's rows in D1, so an
 * unbounded window is an unbounded scan; a month covers what D1 keeps by default (30 days).
 */
export const MAX_STATS_DAYS = 31;

const time = (description: string) =>
  z
    .string()
    .refine((v) => parseTimeParam(v) !== undefined, TIME_PARAM_HINT)
    .optional()
    .openapi({ description, example: "2026-05-01T00:00:00Z" });
const name = z.string().min(1).max(256).optional();

const ListQuery = z.object({
  session_id: name,
  key_id: name.openapi({ description: "Admins only; other keys always see just their own records." }),
  tool: name,
  status: z.enum(AUDIT_STATUSES).optional(),
  error_code: z
    .string()
    .regex(/^[A-Z_]{1,64}$/, "must be an error code such as TOOL_TIMEOUT (see docs/errors.md)")
    .optional(),
  since: time("Records at or after this time (ISO 8601 or epoch ms)."),
  until: time("Records before this time (ISO 8601 or epoch ms)."),
  cursor: z
    .string()
    .refine(
      (v) => decodeCursor(v) !== undefined || decodeShardCursor(v) !== undefined,
      "is not a cursor this API returned; pass next_cursor from the previous page as it is",
    )
    .optional(),
  limit: z
    .string()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_PAGE_SIZE, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .optional()
    .openapi({ description: `Records per page, default ${DEFAULT_PAGE_SIZE}.`, example: "50" }),
});

export const listRoute = createRoute({
  method: "get",
  path: "/v1/audit",
  summary: "Audit records, newest first",
  description: "One record per tool call. Pass `next_cursor` back as `cursor` for the next page; it is null on the last one.",
  request: { query: ListQuery },
  responses: {
    200: {
      description: "A page of records.",
      content: {
        "application/json": { schema: z.object({ records: z.array(AuditRecordWireSchema), next_cursor: z.string().nullable() }).openapi("AuditPage") },
      },
    },
    ...errorResponses(400, 500),
  },
});

export const statsRoute = createRoute({
  method: "get",
  path: "/v1/audit/stats",
  summary: "Per-tool call counts, error rate and p50/p95 duration over a window",
  request: {
    query: z.object({
      since: time("Window start (ISO 8601 or epoch ms); default 24 hours before `until`."),
      until: time("Window end, exclusive (ISO 8601 or epoch ms); default now."),
      tool: name,
    }),
  },
  responses: {
    200: {
      description: "The window's stats, overall and per tool (sorted by name).",
      content: {
        "application/json": {
          schema: z
            .object({
              since: z.string(),
              until: z.string(),
              tool: z.string().nullable(),
              incomplete_before: z.string().nullable().openapi({
                description:
                  "Set when the window starts before the time from which D1 holds every record: calls before it may have moved to the R2 archive (AUDIT_ARCHIVE_AFTER_DAYS) or been deleted (AUDIT_RETENTION_DAYS) and are not counted. Null when the whole window is counted.",
              }),
              total: CallStatsWireSchema,
              tools: z.array(CallStatsWireSchema.extend({ tool: z.string() })),
            })
            .openapi("AuditStats"),
        },
      },
    },
    ...errorResponses(400, 500),
  },
});

export const ExportQuery = ListQuery.omit({ cursor: true, limit: true }).extend({
  since: time("Window start, inclusive (ISO 8601 or epoch ms); default 24 hours before `until`."),
  until: time("Window end, exclusive (ISO 8601 or epoch ms); default now."),
});

export const exportRoute = createRoute({
  method: "get",
  path: "/v1/audit/export",
  summary: "A window of audit records as NDJSON, oldest first, from D1 and the R2 archive",
  description: `One record per line, in the shape \`GET /v1/audit\` lists, streamed. The window is at most ${MAX_EXPORT_DAYS} days; export a longer period in several requests.`,
  request: { query: ExportQuery },
  responses: {
    200: { description: "The window's records, one JSON object per line.", content: { "application/x-ndjson": { schema: z.string() } } },
    ...errorResponses(400, 500),
  },
});
