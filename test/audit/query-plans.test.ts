/**
 * The audit table's costs, read from SQLite itself: every listing and stats statement finds its
 * rows through the primary key (at, rid) or one of the two indexes, never by scanning the table
 * or sorting a listing; and one record costs at most three rows written (table + two indexes).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditFilters } from "../../src/audit/audit-filters.ts";
import { CURRENT_LAYOUT, PRE_REQUEST_ID_LAYOUT, PRE_RUN_ID_LAYOUT } from "../../src/audit/audit-layout.ts";
import { statsStatements } from "../../src/audit/audit-stats.ts";
import { AUDIT_KEY_INDEX, AUDIT_SESSION_INDEX, AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { listStatements } from "../../src/audit/list-audit.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "./support.ts";

const T = Date.parse("2031-07-01T00:00:00Z");

async function plan(sql: string, params: readonly (string | number)[]): Promise<string[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}

/** Every step that reads audit_records, which must be a search of the primary key or an index. */
function tableReads(details: string[]): string[] {
  return details.filter((d) => new RegExp(`\\b${AUDIT_TABLE}\\b`).test(d) && /^(SCAN|SEARCH)/.test(d));
}

const ranged = new RegExp(`^SEARCH ${AUDIT_TABLE} USING (PRIMARY KEY|(COVERING )?INDEX (${AUDIT_KEY_INDEX}|${AUDIT_SESSION_INDEX})) \\(`);

const LISTINGS: [string, AuditFilters][] = [
  ["key scope", { scopeKeyId: "k" }],
  ["key filter", { keyId: "k" }],
  ["session", { sessionId: "s" }],
  ["session within a key's scope", { scopeKeyId: "k", sessionId: "s" }],
  ["time window", { since: T, until: T + 1000 }],
  ["since only", { since: T }],
  ["tool (admin)", { tool: "echo" }],
  ["status (admin)", { status: "error" }],
  ["error code (admin)", { errorCode: "TOOL_TIMEOUT" }],
  ["tool within a key's scope", { scopeKeyId: "k", tool: "echo" }],
  ["status and error code in a session", { sessionId: "s", status: "error", errorCode: "TOOL_TIMEOUT" }],
  ["everything at once", { scopeKeyId: "k", keyId: "k", sessionId: "s", tool: "echo", status: "ok", since: T, until: T + 1000 }],
];

describe("audit query plans", () => {
  it("finds every listing page by a range of the primary key or an index, in index order (no sort), with or without a cursor", async () => {
    for (const [name, filters] of LISTINGS) {
      for (const cursor of [undefined, { at: T + 500, tie: 42 }]) {
        const statements = listStatements(CURRENT_LAYOUT, filters, { limit: 50, ...(cursor === undefined ? {} : { cursor }) });
        for (const statement of [statements.page, ...("edge" in statements && statements.edge !== undefined ? [statements.edge] : [])]) {
          const details = await plan(statement.sql, statement.params);
          const reads = tableReads(details);
          // With nothing to range over (no key, session, window or cursor), the read is the newest
          // rows in primary-key order, which the LIMIT ends: a walk, not a scan of the table.
          const unbounded =
            filters.scopeKeyId === undefined &&
            filters.keyId === undefined &&
            filters.sessionId === undefined &&
            filters.since === undefined &&
            filters.until === undefined &&
            cursor === undefined;
          const allowed = (d: string) => ranged.test(d) || (unbounded && d === `SCAN ${AUDIT_TABLE}` && /ORDER BY at DESC, rid DESC LIMIT/.test(statement.sql));
          expect([name, reads.length, reads.every(allowed)], details.join(" | ")).toEqual([name, 1, true]);
          expect([name, details.some((d) => d.includes("TEMP B-TREE"))]).toEqual([name, false]);
        }
      }
    }
  });

  it("walks the primary key newest first for the unfiltered admin page: LIMIT-bounded, no sort", async () => {
    const { page } = listStatements(CURRENT_LAYOUT, {}, { limit: 50 });
    const details = await plan(page.sql, page.params);
    expect(tableReads(details)).toEqual([`SCAN ${AUDIT_TABLE}`]);
    expect(details.some((d) => d.includes("TEMP B-TREE"))).toBe(false);
    expect(page.sql).toMatch(/ORDER BY at DESC, rid DESC LIMIT \?$/);
  });

  it("reads a stats window by a range of the primary key, or of the key's index for a non-admin", async () => {
    const windows: AuditFilters[] = [
      { since: T, until: T + 86_400_000 },
      { since: T, until: T + 86_400_000, tool: "echo" },
      { since: T, until: T + 86_400_000, scopeKeyId: "k" },
      { since: T, until: T + 86_400_000, scopeKeyId: "k", tool: "echo" },
    ];
    for (const filters of windows) {
      const statements = statsStatements(CURRENT_LAYOUT, filters);
      expect(statements).toHaveLength(4);
      for (const statement of statements) {
        const details = await plan(statement.sql, statement.params);
        const reads = tableReads(details);
        expect([statement.sql.slice(0, 40), reads.length > 0 && reads.every((d) => ranged.test(d))], details.join(" | ")).toEqual([
          statement.sql.slice(0, 40),
          true,
        ]);
      }
    }
  });

  it("writes at most three rows per record, plus one rollup row per hour, tool and key of the batch, as D1 counts them", async () => {
    const at = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const one = await writeAuditRecords(env.DB, [auditRecord({ keyId: "key-rows-written", at })]);
    expect(one).toBeGreaterThan(0);
    expect(one).toBeLessThanOrEqual(3 + 1);
    const hundred = await writeAuditRecords(
      env.DB,
      Array.from({ length: 100 }, (_, i) => auditRecord({ keyId: "key-rows-written", at: at + i })),
    );
    expect(hundred).toBeLessThanOrEqual(300 + 1);
    // Redelivered: nothing new, so nothing written.
    const records = Array.from({ length: 10 }, () => auditRecord({ keyId: "key-rows-written-again" }));
    await writeAuditRecords(env.DB, records);
    expect(await writeAuditRecords(env.DB, records)).toBe(0);
  });

  it("reads each queued row's JSON from json_each once per row, not once per column, in every layout the INSERT has", async () => {
    for (const layout of [CURRENT_LAYOUT, PRE_REQUEST_ID_LAYOUT, PRE_RUN_ID_LAYOUT]) {
      const { results } = await env.DB.prepare(`EXPLAIN ${layout.insertSql}`).bind("[]").all<{ opcode: string; p2: number }>();
      // Column 1 of json_each is `value`. Flattened into the INSERT, SQLite read it for every
      // `->>`, re-rendering the row's text each time: 28 reads, most of D1's cost per row.
      expect(results.filter((op) => op.opcode === "VColumn" && op.p2 === 1)).toHaveLength(1);
    }
  });
});
