import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditRecordId } from "../../src/audit/audit-record.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { deleteExpiredAudit } from "../../src/audit/retention.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord, countRows, flakyDatabase } from "./support.ts";

const DAY = 86_400_000;
const now = Date.parse("2031-06-30T03:17:00Z");

describe("audit retention", () => {
  it("deletes only records older than the retention period", async () => {
    const old = [31, 45, 400].map((days) => auditRecord({ keyId: "key-retain", at: now - days * DAY }));
    const kept = [0, 1, 29.9].map((days) => auditRecord({ keyId: "key-retain", at: now - days * DAY }));
    await writeAuditRecords(env.DB, [...old, ...kept]);

    expect(await deleteExpiredAudit(env.DB, 30, now)).toBe(3);
    const left = await env.DB.prepare(`SELECT at, rid FROM ${AUDIT_TABLE} WHERE key_id = ?`).bind("key-retain").all<{ at: number; rid: number }>();
    expect(left.results.map(auditRecordId).sort()).toEqual(kept.map(auditRecordId).sort());
    expect(await deleteExpiredAudit(env.DB, 30, now)).toBe(0);
  });

  it("refuses a retention that would delete everything, and reports a D1 failure to the scheduler", async () => {
    await writeAuditRecords(env.DB, [auditRecord({ keyId: "key-retain-guard", at: now })]);
    await expect(deleteExpiredAudit(env.DB, 0, now)).rejects.toThrow(RangeError);
    await expect(deleteExpiredAudit(env.DB, Number.NaN, now)).rejects.toThrow(RangeError);
    await expect(
      deleteExpiredAudit(
        flakyDatabase(env.DB, () => "before"),
        30,
        now,
      ),
    ).rejects.toThrow(/injected/);
    expect(await countRows("key_id = ?", "key-retain-guard")).toBe(1);
  });
});
