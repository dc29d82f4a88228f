/**
 * `GET /v1/audit`, `GET /v1/audit/stats` and `GET /v1/audit/export`. An `admin` principal sees every key's records; any
 * other principal sees only its own key's, in listings and in stats alike.
 */
import { $, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.ts";
import { loadConfig } from "../config/config.ts";
import { failureResponse, type RequestIssue, validationHook } from "../http/request-failure.ts";
import type { AuditFilters } from "./audit-filters.ts";
import { decodeCursor, decodeShardCursor, encodeCursor, encodeShardCursor, parseTimeParam } from "./audit-params.ts";
import { DEFAULT_PAGE_SIZE, ExportQuery, exportRoute, listRoute, MAX_EXPORT_DAYS, MAX_STATS_DAYS, statsRoute } from "./audit-route-specs.ts";
import { shardsToRead } from "./audit-shards.ts";
import { auditStats } from "./audit-stats.ts";
import { auditStatsSharded } from "./audit-stats-sharded.ts";
import { toWireRecord, toWireStats } from "./audit-wire.ts";
import { exportAudit } from "./export-audit.ts";
import { listAudit } from "./list-audit.ts";
import { listAuditSharded } from "./list-audit-sharded.ts";
import { d1Horizon } from "./stats-horizon.ts";

/** The Hono environment of the audit routes: the auth middleware must have set `principal`. */
export interface AuditEnv {
  Bindings: Env;
  Variables: { principal: Principal };
}

const DEFAULT_STATS_WINDOW_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;

/** Parses a value the query schema already checked; absent stays absent. */
const timeOf = (value: string | undefined): number | undefined => (value === undefined ? undefined : parseTimeParam(value));

const badRange: RequestIssue = { path: "since", message: "must be before until" };
// A cursor of the other kind: the shard list changed between pages, or the query did (key_id).
const badCursor: RequestIssue = {
  path: "cursor",
  message: "does not fit this listing (its filters or the audit shards changed since it was issued); start again without cursor",
};

export const auditRoutes = $(
  new OpenAPIHono<AuditEnv>({
    // Set here as well as on the app, so the routes answer the same 400 wherever they are mounted.
    defaultHook: validationHook,
  })
    .openapi(listRoute, async (c) => {
      const principal = principalOf(c.get("principal"));
      if (principal === undefined) return failureResponse(c, { kind: "internal" });
      const q = c.req.valid("query");
      const since = timeOf(q.since);
      const until = timeOf(q.until);
      if (since !== undefined && until !== undefined && since >= until) return failureResponse(c, { kind: "invalid_request", issues: [badRange] });
      const filters: AuditFilters = { ...queryFilters(principal, q), ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
      const limit = q.limit === undefined ? DEFAULT_PAGE_SIZE : Number(q.limit);
      const shards = shardsToRead(c.env, keyScope(filters));
      const [only] = shards;
      if (shards.length === 1 && only !== undefined) {
        const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
        if (q.cursor !== undefined && cursor === undefined) return failureResponse(c, { kind: "invalid_request", issues: [badCursor] });
        const page = await listAudit(only.db, filters, { limit, ...(cursor === undefined ? {} : { cursor }) });
        return c.json({ records: page.records.map(toWireRecord), next_cursor: page.next === null ? null : encodeCursor(page.next) }, 200);
      }
      // An admin listing of every key with the log sharded: each shard pages on, merged (list-audit-sharded.ts).
      const positions = q.cursor === undefined ? undefined : decodeShardCursor(q.cursor);
      if (q.cursor !== undefined && positions?.length !== shards.length) return failureResponse(c, { kind: "invalid_request", issues: [badCursor] });
      const page = await listAuditSharded(
        shards.map((shard) => shard.db),
        filters,
        { limit, ...(positions === undefined ? {} : { positions }) },
      );
      return c.json({ records: page.records.map(toWireRecord), next_cursor: page.next === null ? null : encodeShardCursor(page.next) }, 200);
    })
    .openapi(statsRoute, async (c) => {
      const principal = principalOf(c.get("principal"));
      if (principal === undefined) return failureResponse(c, { kind: "internal" });
      const q = c.req.valid("query");
      const until = timeOf(q.until) ?? Date.now();
      const since = timeOf(q.since) ?? until - DEFAULT_STATS_WINDOW_MS;
      if (since >= until) return failureResponse(c, { kind: "invalid_request", issues: [badRange] });
      if (until - since > MAX_STATS_DAYS * DAY_MS) {
        return failureResponse(c, {
          kind: "invalid_request",
          issues: [{ path: "until", message: `must be at most ${MAX_STATS_DAYS} days after since; older records are in the archive (GET /v1/audit/export)` }],
        });
      }
      const archived = (c.env as Partial<Pick<Env, "AUDIT_ARCHIVE">>).AUDIT_ARCHIVE !== undefined;
      const horizon = d1Horizon(loadConfig(c.env), archived, Date.now());
      const filters: AuditFilters = { ...scope(principal), since, until, ...(q.tool === undefined ? {} : { tool: q.tool }) };
      const shards = shardsToRead(c.env, keyScope(filters));
      const [only] = shards;
      const stats =
        shards.length === 1 && only !== undefined
          ? await auditStats(only.db, filters)
          : await auditStatsSharded(
              shards.map((shard) => shard.db),
              filters,
            );
      return c.json(
        {
          since: new Date(since).toISOString(),
          until: new Date(until).toISOString(),
          tool: q.tool ?? null,
          incomplete_before: since < horizon ? new Date(horizon).toISOString() : null,
          total: toWireStats(stats.total),
          tools: stats.tools.map((t) => ({ tool: t.tool, ...toWireStats(t) })),
        },
        200,
      );
    })
    // A plain route with the schema checked here: @hono/zod-openapi types `application/x-ndjson`
    // as a JSON media type that matches no body, so `.openapi` cannot type a stream; the document
    // still lists the route (registerPath below).
    .get(exportRoute.getRoutingPath(), function exportRecords(c) {
      const principal = principalOf(c.get("principal"));
      if (principal === undefined) return failureResponse(c, { kind: "internal" });
      const parsed = ExportQuery.safeParse(c.req.query());
      if (!parsed.success) return validationHook(parsed, c) ?? failureResponse(c, { kind: "internal" });
      const q = parsed.data;
      const until = timeOf(q.until) ?? Date.now();
      const since = timeOf(q.since) ?? until - DEFAULT_STATS_WINDOW_MS;
      if (since >= until) return failureResponse(c, { kind: "invalid_request", issues: [badRange] });
      if (until - since > MAX_EXPORT_DAYS * DAY_MS) {
        return failureResponse(c, {
          kind: "invalid_request",
          issues: [{ path: "until", message: `must be at most ${MAX_EXPORT_DAYS} days after since; export a longer period in several requests` }],
        });
      }
      const archive = (c.env as Partial<Pick<Env, "AUDIT_ARCHIVE">>).AUDIT_ARCHIVE;
      const filters = { ...queryFilters(principal, q), since, until };
      const stream = exportAudit(shardsToRead(c.env, keyScope(filters)), archive, filters);
      // A plain Response: what a typed route expects for a media type other than JSON or text/plain.
      return new Response(stream, { status: 200, headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
    }),
);

/** The caller's scope and the query's filters other than the window, for listing and export alike. */
function queryFilters(principal: Principal, q: z.infer<typeof ExportQuery>): AuditFilters {
  return {
    ...scope(principal),
    ...(q.key_id === undefined ? {} : { keyId: q.key_id }),
    ...(q.session_id === undefined ? {} : { sessionId: q.session_id }),
    ...(q.tool === undefined ? {} : { tool: q.tool }),
    ...(q.status === undefined ? {} : { status: q.status }),
    ...(q.error_code === undefined ? {} : { errorCode: q.error_code }),
  };
}

/** The one key a read is confined to (the caller's own, or the key an admin asked for), whose shard holds all it can see. */
function keyScope(filters: AuditFilters): string | undefined {
  return filters.scopeKeyId ?? filters.keyId;
}

/** Admins see everything; every other role sees its own key's records only. */
function scope(principal: Principal): { scopeKeyId?: string } {
  return principal.role === "admin" ? {} : { scopeKeyId: principal.keyId };
}

/** Fails closed: mounted without the auth middleware, the routes reveal nothing. */
function principalOf(principal: Principal | undefined): Principal | undefined {
  if (principal === undefined) console.error("audit routes reached without a principal: mount them behind the auth middleware");
  return principal;
}

auditRoutes.openAPIRegistry.registerPath(exportRoute);
