import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/list-audit.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { auditRecord, countRows } from "./support.ts";

describe("writing audit records", () => {
  it("writes each record exactly once, however often the same records are written", async () => {
    const records = Array.from({ length: 5 }, (_, i) => auditRecord({ keyId: "key-once", toolCallId: `call_${i}` }));
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, records);
    await writeAuditRecords(env.DB, [...records.slice(2), auditRecord({ keyId: "key-once" })]);
    expect(await countRows("key_id = ?", "key-once")).toBe(6);
  });

  it("writes more records than one D1 batch holds", async () => {
    const records = Array.from({ length: 230 }, () => auditRecord({ keyId: "key-many" }));
    await writeAuditRecords(env.DB, records);
    expect(await countRows("key_id = ?", "key-many")).toBe(230);
  });

  it("splits rows over several statements when their JSON passes one statement's share", async () => {
    // 4 KiB of arguments a record: 200 of them are about 800 000 characters, over 600 000.
    const records = Array.from({ length: 200 }, (_, i) =>
      auditRecord({ keyId: "key-chunks", toolCallId: `call_${i}`, arguments: JSON.stringify({ text: "x".repeat(4_000) }) }),
    );
    await writeAuditRecords(env.DB, records);
    expect(await countRows("key_id = ?", "key-chunks")).toBe(200);
  });

  it("reads back exactly the record it wrote", async () => {
    const record = auditRecord({
      keyId: "key-roundtrip",
      toolset: null,
      coercions: [{ path: "n", from: "string", to: "integer" }],
      coercionCount: 1,
      argumentsTruncated: true,
      truncated: true,
      status: "timed_out",
      errorCode: "TOOL_TIMEOUT",
      policyDecision: "allow",
      policyRule: "whitelist:echo",
      approvalId: "appr_9",
    });
    await writeAuditRecords(env.DB, [record]);
    const page = await listAudit(env.DB, { keyId: "key-roundtrip" }, { limit: 10 });
    expect(page.records).toEqual([record]);
  });
});
