/**
 * Bench-only routes of the admin overview scenario (scenarios/admin-overview.ts), served by the
 * bench Worker: seeding the audit log with many records spread over a window, a sign-in cookie
 * for the console as the bootstrap admin token, and the overview's reads alone (no page), so the
 * scenario can tell the SQL's CPU from the page's.
 */
/// <reference path="../../worker-configuration.d.ts" />
import type { Hono } from "hono";
import { OverviewPage } from "../../src/admin/overview-page.tsx";
import { overviewStats } from "../../src/admin/overview-stats.ts";
import { stuckDeliveries } from "../../src/admin/stuck-deliveries.ts";
import { listApprovals } from "../../src/approvals/approvals.ts";
import { SESSION_COOKIE } from "../../src/approvals-page/page-site.ts";
import { createPageSignIn } from "../../src/approvals-page/sign-in-store.ts";
import { AUDIT_ROLLUP_BUCKETS_MS, AUDIT_ROLLUPS_TABLE } from "../../src/audit/audit-rollups.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { ADMIN_TOKEN_PRINCIPAL } from "../../src/auth/admin-token.ts";
import { hashApiKey } from "../../src/auth/key-hash.ts";
import type { AppEnv } from "../../src/http/types.ts";
import { ADMIN_COOKIE_PATH, ADMIN_OVERVIEW_RENDER_PATH, ADMIN_OVERVIEW_SQL_PATH, AUDIT_SEED_PATH } from "./requests.ts";

const TOOLS = 40;

/**
 * N records spread evenly over [since, until), made by SQLite itself in one statement (a
 * Worker-side insert of 100,000 records took over a minute here): 40 tools, 8 keys, 500 sessions, one
 * call in 20 failing with one of five codes, durations 5-904 ms.
 */
const SEED_SQL = `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?1)
INSERT INTO ${AUDIT_TABLE} (at, rid, key_id, session_id, tool_call_id, tool, toolset, arguments, arguments_truncated, arguments_sha256,
  coercions, coercion_count, policy_decision, policy_rule, approval_id, status, error_code, error_message, attempts, duration_ms, result_chars, truncated)
SELECT CAST(?2 + (?3 - ?2) * i / ?1 AS INTEGER), random() & 9007199254740991, 'bench-key-' || (i % 8), 'bench-session-' || (i % 500), 'c' || i,
  'bench_tool_' || (i % ${TOOLS}), 'bench', '{"n":' || i || '}', 0, '', '[]', 0, 'allow', 'default', NULL,
  CASE WHEN i % 20 <> 0 THEN 'ok' WHEN i % 100 = 20 THEN 'timed_out' ELSE 'error' END,
  CASE WHEN i % 20 <> 0 THEN NULL WHEN i % 100 = 20 THEN 'TOOL_TIMEOUT' WHEN i % 100 = 40 THEN 'RATE_LIMITED' WHEN i % 100 = 60 THEN 'INVALID_ARGUMENTS' ELSE 'UPSTREAM_ERROR' END,
  CASE WHEN i % 20 <> 0 THEN NULL ELSE 'bench failure #' || (i % 7) END,
  1, 5 + (i * 7919) % 900, 100, 0
FROM seq WHERE true ON CONFLICT DO NOTHING`;

/**
 * The seeded records' hourly rollups, as the audit writer would have kept them had the records
 * come through it (the seed bypasses it for speed). The bench's database holds nothing else in
 * those hours, so the rollups are built whole rather than added to.
 */
const SEED_ROLLUPS_SQL = [
  `INSERT OR REPLACE INTO ${AUDIT_ROLLUPS_TABLE} (hour, tool, key_id, error_code, calls, errors, duration_ms_sum, duration_ms_max, ${AUDIT_ROLLUP_BUCKETS_MS.map((b) => `le_${b}`).join(", ")})
  SELECT at / 3600000 * 3600000, tool, key_id, COALESCE(error_code, ''), COUNT(*), SUM(status IN ('error', 'timed_out')), SUM(duration_ms), MAX(duration_ms),
    ${AUDIT_ROLLUP_BUCKETS_MS.map((b) => `SUM(duration_ms <= ${b})`).join(", ")}
  FROM ${AUDIT_TABLE} WHERE at >= ?1 AND at <= ?2 AND toolset = 'bench' GROUP BY 1, 2, 3, 4`,
];
const UNSEED_ROLLUPS_SQL = [
  `DELETE FROM ${AUDIT_ROLLUPS_TABLE} WHERE hour >= ?1 / 3600000 * 3600000 AND hour <= ?2 AND tool LIKE 'bench\\_tool\\_%' ESCAPE '\\'`,
];

/** Adds the routes to the bench app. */
export function adminOverviewRoutes(app: Hono<AppEnv>): void {
  app.post(AUDIT_SEED_PATH, async function auditSeed(c) {
    const rows = Number(c.req.query("rows"));
    const since = Number(c.req.query("since"));
    const until = Number(c.req.query("until"));
    if (!(rows > 0 && since < until)) return c.json({ error: "rows=N&since=ms&until=ms" }, 400);
    const { meta } = await c.env.DB.prepare(SEED_SQL).bind(rows, since, until).run();
    await c.env.DB.batch(SEED_ROLLUPS_SQL.map((sql) => c.env.DB.prepare(sql).bind(since, until)));
    return c.json({ rows: meta.changes });
  });

  // The seeded records again, gone: the scenarios after the overview's measure the audit log
  // without them (a larger table makes their row counts and inserts cost more).
  app.delete(AUDIT_SEED_PATH, async function auditUnseed(c) {
    const since = Number(c.req.query("since"));
    const until = Number(c.req.query("until"));
    if (!(since < until)) return c.json({ error: "since=ms&until=ms" }, 400);
    const { meta } = await c.env.DB.prepare(
      `DELETE FROM ${AUDIT_TABLE} WHERE at >= ?1 AND at <= ?2 AND toolset = 'bench' AND tool LIKE 'bench\\_tool\\_%' ESCAPE '\\'`,
    )
      .bind(since, until)
      .run();
    await c.env.DB.batch(UNSEED_ROLLUPS_SQL.map((sql) => c.env.DB.prepare(sql).bind(since, until)));
    return c.json({ rows: meta.changes });
  });

  // The cookie a browser would hold after signing in with ADMIN_TOKEN (the LoadClient keeps no cookies).
  app.post(ADMIN_COOKIE_PATH, async function adminCookie(c) {
    if (c.env.ADMIN_TOKEN === undefined) return c.json({ error: "the bench Worker has no ADMIN_TOKEN" }, 500);
    const { id } = await createPageSignIn(c.env.KV, { keyDigest: hashApiKey(c.env.ADMIN_TOKEN), keyId: ADMIN_TOKEN_PRINCIPAL.keyId });
    return c.json({ cookie: `__Host-${SESSION_COOKIE}=${id}` });
  });

  app.get(ADMIN_OVERVIEW_SQL_PATH, async function overviewSql(c) {
    const now = Date.now();
    const [overview, pending, stuck] = await Promise.all([
      overviewStats(c.env, "day", now),
      listApprovals(c.env, { status: "pending", limit: 20 }),
      stuckDeliveries(c.env.DB, now),
    ]);
    return c.json({ calls: overview.stats.total.calls, pending: pending.length, stuck: stuck.length });
  });

  // The reads once, then the page rendered `times` times from them: the scenario takes the
  // difference between two counts, which is the rendering alone, free of SQLite's CPU.
  app.get(ADMIN_OVERVIEW_RENDER_PATH, async function overviewRender(c) {
    const times = Number(c.req.query("times"));
    if (!(times >= 1 && times <= 1000)) return c.json({ error: "times=1..1000" }, 400);
    const now = Date.now();
    const [overview, pending, stuck] = await Promise.all([
      overviewStats(c.env, "day", now),
      listApprovals(c.env, { status: "pending", limit: 20 }),
      stuckDeliveries(c.env.DB, now),
    ]);
    const viewer = { keyId: ADMIN_TOKEN_PRINCIPAL.keyId, name: ADMIN_TOKEN_PRINCIPAL.name, role: ADMIN_TOKEN_PRINCIPAL.role, csrfToken: "x".repeat(43) };
    let bytes = 0;
    for (let i = 0; i < times; i++) {
      const page = OverviewPage({
        viewer,
        window: "day",
        overview: { ok: true, value: overview },
        pending: { ok: true, value: pending },
        stuck: { ok: true, value: stuck },
      });
      bytes += String(await page?.toString()).length;
    }
    return c.json({ bytes });
  });
}
