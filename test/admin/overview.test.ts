/**
 * The overview page: figures, the calls chart and per-tool durations from audit records in the
 * window, top error codes and messages, hostile text rendered inert, the aggregation's query
 * plans, and a section that degrades to a notice when its store fails.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OverviewPage } from "../../src/admin/overview-page.tsx";
import { overviewStatements } from "../../src/admin/overview-stats.ts";
import { CURRENT_LAYOUT } from "../../src/audit/audit-layout.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "../audit/support.ts";
import { signedInAs } from "./admin-client.ts";

describe("the overview page", () => {
  it("counts the window's calls and errors, charts them per interval and lists the top failures", async () => {
    const now = Date.now();
    const tool = `ov_${crypto.randomUUID().slice(0, 8)}`;
    await writeAuditRecords(env.DB, [
      auditRecord({ at: now - 60_000, tool, durationMs: 10 }),
      auditRecord({ at: now - 50_000, tool, durationMs: 30 }),
      auditRecord({ at: now - 40_000, tool, status: "error", errorCode: "UPSTREAM_ERROR", errorMessage: "upstream said 502", durationMs: 90 }),
      // Outside the last hour, inside the day.
      auditRecord({ at: now - 2 * 3_600_000, tool, durationMs: 10 }),
    ]);
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin?window=hour")).status).toBe(200);
    const hour = client.lastPage;
    expect(hour).toMatch(/data-figure="calls">3</);
    expect(hour).toMatch(/data-figure="errors">1</);
    expect(hour).toContain("<svg viewBox=");
    expect(hour).toContain('aria-label="Calls and errors per 5 min: 3 calls, 1 errors"');
    expect(hour).toContain(`href="/admin/audit?error_code=UPSTREAM_ERROR&amp;since=`);
    expect(hour).toContain("upstream said 502");
    expect(hour).toContain(`${tool}: p50 30 ms, p95 90 ms`);
    expect(hour).toContain('aria-current="page"');

    await client.get("/admin?window=day");
    expect(client.lastPage).toMatch(/data-figure="calls">4</);
    // An unknown window is the default day, not an error.
    expect((await client.get("/admin?window=<b>year</b>")).status).toBe(200);
    expect(client.lastPage).toMatch(/data-figure="calls">4</);
  });

  it("renders a tool name or failure message holding markup as text", async () => {
    const payload = `<script>alert(1)</script><img src=x onerror=alert(2)>`;
    await writeAuditRecords(env.DB, [
      auditRecord({ at: Date.now() - 1000, tool: `x${payload}`, status: "error", errorCode: "TOOL_ERROR", errorMessage: payload }),
    ]);
    const { client } = await signedInAs("admin");
    await client.get("/admin?window=hour");
    expect(client.lastPage).not.toContain("<script>alert");
    expect(client.lastPage).not.toContain("<img src=x");
    expect(client.lastPage).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("shows pending approvals and stuck webhook deliveries with links", async () => {
    const id = `dlv-${crypto.randomUUID()}`;
    const old = Date.now() - 3_600_000;
    await env.DB.prepare(
      `INSERT INTO hook_deliveries (id, hook, provider_delivery_id, received_at, status, calls, updated_at, error) VALUES (?, 'generic', ?, ?, 'failed', '[]', ?, 'the queue gave up')`,
    )
      .bind(id, id, old, old)
      .run();
    const { client } = await signedInAs("admin");
    await client.get("/admin");
    expect(client.lastPage).toContain(id);
    expect(client.lastPage).toContain("the queue gave up");
    expect(client.lastPage).toContain(`href="/admin/audit?session_id=${id}"`);
    expect(client.lastPage).toContain("Pending approvals");
  });

  it("degrades a section whose store failed to a notice, keeping the rest of the page", async () => {
    const page = OverviewPage({
      viewer: { keyId: "k", name: "n", role: "admin", csrfToken: "t" },
      window: "day",
      overview: { ok: false, store: "The audit log (D1)" },
      pending: { ok: true, value: [] },
      stuck: { ok: false, store: "The webhook deliveries (D1)" },
    });
    const html = String(await page?.toString());
    expect(html).toContain("The audit log (D1) could not be read just now");
    expect(html).toContain("The webhook deliveries (D1) could not be read just now");
    expect(html).toContain("Pending approvals");
  });

  it("aggregates by a range of the primary key: no scan of the table", async () => {
    const now = Date.now();
    for (const statement of overviewStatements(CURRENT_LAYOUT.table, now - 86_400_000, now, 3_600_000)) {
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .bind(...statement.params)
        .all<{ detail: string }>();
      const reads = results.map((r) => r.detail).filter((d) => d.includes(AUDIT_TABLE));
      expect(reads, results.map((r) => r.detail).join(" | ")).toEqual([`SEARCH ${AUDIT_TABLE} USING PRIMARY KEY (at>? AND at<?)`]);
    }
  });
});
