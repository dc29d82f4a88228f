/**
 * A Worker deployed before migrations 0006 (request_id), 0007 (run_id), 0015 (credential) and 0016 (called_as) have run: the audit
 * INSERT falls back to the layout without the missing column (audit-layout.ts), so no record
 * is lost, and the columns it has are filled as before.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { listAudit } from "../../src/audit/list-audit.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord } from "./support.ts";

describe("the audit INSERT on a table that lacks the newest columns", () => {
  beforeAll(async () => {
    // This file's D1 back to audit_records before 0016 (no called_as); the tests go further back.
    await env.DB.prepare(`ALTER TABLE ${AUDIT_TABLE} DROP COLUMN called_as`).run();
  });

  it("writes every record once without called_as while 0016 has not run, keeping run and request ids", async () => {
    const records = Array.from({ length: 3 }, (_, i) =>
      auditRecord({ keyId: "key-pre-0016", toolCallId: `call_${i}`, runId: "run_1", requestId: `req_${i}`, calledAs: "say" }),
    );
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, records);
    const page = await listAudit(env.DB, { keyId: "key-pre-0016" }, { limit: 10 });
    expect(page.records).toHaveLength(3);
    expect(page.records.map((r) => [r.requestId, r.runId]).sort()).toEqual([0, 1, 2].map((i) => [`req_${i}`, "run_1"]));
    expect(page.records.every((r) => r.calledAs === undefined)).toBe(true);
  });

  it("writes every record once without credential while 0015 has not run, keeping run_id and request_id", async () => {
    await env.DB.prepare(`ALTER TABLE ${AUDIT_TABLE} DROP COLUMN credential`).run();
    const records = Array.from({ length: 2 }, (_, i) => auditRecord({ keyId: "key-pre-0015", toolCallId: `call_${i}`, runId: "run_1", credential: "own" }));
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, records);
    const page = await listAudit(env.DB, { keyId: "key-pre-0015" }, { limit: 10 });
    expect(page.records.map((r) => [r.runId, r.credential])).toEqual([
      ["run_1", undefined],
      ["run_1", undefined],
    ]);
  });

  it("writes every record once without run_id while 0007 has not run, and lists it with everything else it had", async () => {
    await env.DB.prepare(`ALTER TABLE ${AUDIT_TABLE} DROP COLUMN run_id`).run();
    const records = Array.from({ length: 3 }, (_, i) => auditRecord({ keyId: "key-pre-0007", toolCallId: `call_${i}`, runId: "run_1", requestId: `req_${i}` }));
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, records);
    const page = await listAudit(env.DB, { keyId: "key-pre-0007" }, { limit: 10 });
    expect(page.records).toHaveLength(3);
    expect(page.records.map((r) => r.requestId).sort()).toEqual(["req_0", "req_1", "req_2"]);
    expect(page.records.every((r) => r.runId === undefined)).toBe(true);
  });

  it("writes every record once without request_id while 0006 has not run either", async () => {
    await env.DB.prepare(`ALTER TABLE ${AUDIT_TABLE} DROP COLUMN request_id`).run();
    const records = Array.from({ length: 3 }, (_, i) =>
      auditRecord({
        keyId: "key-pre-0006",
        toolCallId: `call_${i}`,
        requestId: `req_${i}`,
        errorCode: "UPSTREAM_ERROR",
        errorMessage: "upstream said no",
        status: "error",
      }),
    );
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, records);
    const page = await listAudit(env.DB, { keyId: "key-pre-0006" }, { limit: 10 });
    expect(page.records).toHaveLength(3);
    expect(page.records.map((r) => [r.requestId, r.errorMessage])).toEqual(Array.from({ length: 3 }, () => [null, "upstream said no"]));
  });
});
