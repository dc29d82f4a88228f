/**
 * GET /metrics: the audit log's hourly rollups (src/audit/audit-rollups.ts) and the all-time totals
 * older hours are folded into (src/audit/fold-rollups.ts), summed per tool and key, in Prometheus text format, for a scraper. The counts live in D1, written by
 * the audit consumer, so every isolate answers the same figures (an isolate's own counters would
 * show only the calls that isolate served, and vanish with it). Admins may read it, and keys
 * holding the `metrics` scope. Figures trail calls by the audit queue's batch delay (seconds).
 * Also the telemetry path's own failures (src/tracing/telemetry-counters.ts).
 */
import { Hono } from "hono";
import type { AuditDatabase } from "../audit/audit-database.ts";
import { countsOf, ROLLUPS_BY_TOOL_AND_KEY_SQL, readRollups } from "../audit/audit-rollups.ts";
import { shardsToRead } from "../audit/audit-shards.ts";
import { ALL_TIME_BY_TOOL_AND_KEY_SQL, AUDIT_ROLLUP_TOTALS_TABLE } from "../audit/fold-rollups.ts";
import { authenticate } from "../auth/authenticate.ts";
import { requireRoleOrScope } from "../auth/require-role.ts";
import type { AppEnv } from "../http/types.ts";
import { OTLP_EXPORT_FAILURES, OTLP_SPANS_DROPPED, readCounters } from "../tracing/telemetry-counters.ts";
import { type Family, PROMETHEUS_CONTENT_TYPE, prometheusText } from "./prometheus-text.ts";
import { type RollupSeries, rollupFamilies } from "./rollup-families.ts";

export const METRICS_PATH = "/metrics";

/** All-time sums per tool and key; before migration 0021 made the totals, the hourly rows alone (nothing was folded yet). */
async function readAllTime(shards: readonly AuditDatabase[]) {
  try {
    return await readRollups(shards, ALL_TIME_BY_TOOL_AND_KEY_SQL);
  } catch (error) {
    if (!String(error).includes(`no such table: ${AUDIT_ROLLUP_TOTALS_TABLE}`)) throw error;
    return readRollups(shards, ROLLUPS_BY_TOOL_AND_KEY_SQL);
  }
}

/** The route, behind a bearer key with the admin role or the `metrics` scope. */
export const metricsRoutes = new Hono<AppEnv>()
  .use(METRICS_PATH, authenticate(), requireRoleOrScope("metrics", "admin"))
  .get(METRICS_PATH, async function metrics(c) {
    const [rows, counters] = await Promise.all([readAllTime(shardsToRead(c.env).map((shard) => shard.db)), readCounters(c.env.DB)]);
    const series: RollupSeries[] = rows.map((row) => ({ tool: String(row.tool), keyId: String(row.key_id), counts: countsOf(row) }));
    const families: Family[] = [
      ...rollupFamilies(series),
      {
        name: "toolgate_otlp_export_failures_total",
        type: "counter",
        help: "OTLP span exports that failed (collector down, slower than the timeout, or answering an error); their spans were dropped.",
        samples: [{ name: "toolgate_otlp_export_failures_total", labels: {}, value: counters[OTLP_EXPORT_FAILURES] }],
      },
      {
        name: "toolgate_otlp_spans_dropped_total",
        type: "counter",
        help: "Spans of failed OTLP exports.",
        samples: [{ name: "toolgate_otlp_spans_dropped_total", labels: {}, value: counters[OTLP_SPANS_DROPPED] }],
      },
    ];
    return c.body(prometheusText(families), 200, { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" });
  });
