/**
 * A Worker deployed before migration 0005 has run: the audit log keeps working on the old
 * audit_log table (writes, listings, stats, retention), and the migration then moves every row
 * to audit_records, where the same reads find them.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { auditRecordId } from "../../src/audit/audit-record.ts";
import { auditStats } from "../../src/audit/audit-stats.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { LEGACY_AUDIT_TABLE, LEGACY_INSERT_AUDIT_ROWS_SQL } from "../../src/audit/legacy-audit-table.ts";
import { listAudit } from "../../src/audit/list-audit.ts";
import { deleteExpiredAudit } from "../../src/audit/retention.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "./support.ts";

const migration = (prefix: string) => {
  const found = (env.TEST_MIGRATIONS ?? []).find((m) => m.name.startsWith(prefix));
  if (found === undefined) throw new Error(`no migration ${prefix}`);
  return found.queries;
};

const T = Date.parse("2031-08-01T00:00:00Z");
const DAY = 86_400_000;

describe("the audit log before and after migration 0005", () => {
  beforeAll(async () => {
    // This file's D1 back to the layout of migrations 0001-0004.
    await env.DB.prepare(`DROP TABLE ${AUDIT_TABLE}`).run();
    for (const query of [...migration("0001"), ...migration("0003").filter((q) => q.includes(LEGACY_AUDIT_TABLE))]) await env.DB.prepare(query).run();
  });

  it("reads each queued row's JSON from json_each once per row on the old table too", async () => {
    const { results } = await env.DB.prepare(`EXPLAIN ${LEGACY_INSERT_AUDIT_ROWS_SQL}`).bind("[]").all<{ opcode: string; p2: number }>();
    // Column 1 of json_each is `value` (query-plans.test.ts has the current table's case).
    expect(results.filter((op) => op.opcode === "VColumn" && op.p2 === 1)).toHaveLength(1);
  });

  it("writes, lists, pages, counts and expires records on the old table, and the migration keeps every one", async () => {
    const records = Array.from({ length: 7 }, (_, i) =>
      auditRecord({ keyId: "key-legacy", at: T + i, status: i === 6 ? "error" : "ok", errorCode: i === 6 ? "EXECUTION_FAILED" : null }),
    );
    const expired = auditRecord({ keyId: "key-legacy", at: T - 40 * DAY });
    expect(await writeAuditRecords(env.DB, [...records, expired])).toBeGreaterThan(0);
    // Redelivered: still one row each.
    await writeAuditRecords(env.DB, records);
    expect(await deleteExpiredAudit(env.DB, 30, T + DAY)).toBe(1);

    const first = await listAudit(env.DB, { keyId: "key-legacy" }, { limit: 4 });
    expect(first.records.map(auditRecordId)).toEqual(records.slice(3).reverse().map(auditRecordId));
    const second = await listAudit(env.DB, { keyId: "key-legacy" }, { limit: 4, cursor: first.next ?? { at: 0, tie: "" } });
    expect(second.records.map(auditRecordId)).toEqual(records.slice(0, 3).reverse().map(auditRecordId));
    expect(second.next).toBeNull();
    expect((await listAudit(env.DB, { status: "error" }, { limit: 10 })).records.map(auditRecordId)).toEqual([auditRecordId(records[6]!)]);
    const stats = await auditStats(env.DB, { since: T, until: T + DAY });
    expect(stats.total).toMatchObject({ calls: 7, errors: 1, topMessages: [] });

    for (const query of migration("0005")) await env.DB.prepare(query).run();
    const moved = await listAudit(env.DB, { keyId: "key-legacy" }, { limit: 10 });
    // Same records in the same order; their ids now carry the migration's fresh rid.
    expect(moved.records.map((r) => ({ ...r, rid: 0 }))).toEqual([...records].reverse().map((r) => ({ ...r, rid: 0, errorMessage: null })));
    const written = await writeAuditRecords(env.DB, [auditRecord({ keyId: "key-legacy", at: T + 10 })]);
    expect(written).toBeLessThanOrEqual(3);
    expect((await listAudit(env.DB, { keyId: "key-legacy" }, { limit: 20 })).records).toHaveLength(8);
  });
});
