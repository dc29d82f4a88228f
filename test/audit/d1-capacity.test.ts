/**
 * What one local D1 database takes of the audit log: rows per second through the one writer
 * (writeAuditRowLists, in the queue consumer's batch size) and bytes stored per record. The
 * figures go into docs/scale.md; run with `--silent=false` to print them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type AuditRow, fromRow, toRowValues } from "../../src/audit/audit-table.ts";
import { toWireRecord } from "../../src/audit/audit-wire.ts";
import { gzipLines } from "../../src/audit/gzip-lines.ts";
import { writeAuditRowLists } from "../../src/audit/write-audit-records.ts";
import { auditRecord, countRows } from "./support.ts";

const BATCHES = 40;
/** A queue delivery: up to 100 messages of group-committed records; 250 records per write. */
const RECORDS_PER_BATCH = 250;

describe("one D1 database's audit capacity", () => {
  it("writes 3 rows per record, plus one rollup row per hour, tool and key of a batch, and reports records per second and bytes per record", async () => {
    const start = Date.parse("2035-01-01T00:00:00Z");
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      Array.from({ length: RECORDS_PER_BATCH }, (_, i) =>
        JSON.stringify(
          toRowValues(
            auditRecord({
              keyId: `key-cap-${i % 50}`,
              sessionId: `session-${b}-${i % 10}`,
              toolCallId: `call_${b}_${i}`,
              tool: ["echo", "http_request", "search_docs", "clock"][i % 4] ?? "echo",
              at: start + b * 1000 + i,
              arguments: JSON.stringify({ url: "https://api.example.com/v1/items?page=2", query: `item ${i}` }),
              durationMs: 20 + (i % 200),
              resultChars: 400 + i,
            }),
          ),
        ),
      ),
    );
    const pagesBefore = await databaseBytes();
    let rowsWritten = 0;
    const began = performance.now();
    for (const batch of batches) rowsWritten += await writeAuditRowLists(env.DB, batch);
    const seconds = (performance.now() - began) / 1000;
    const records = BATCHES * RECORDS_PER_BATCH;
    expect(await countRows("key_id LIKE 'key-cap-%'")).toBe(records);
    // The hourly rollups (0012_audit_rollups.sql) add one row per (hour, tool, key, error code)
    // a batch holds: here 50 keys x 4 tools, paired so that each batch has 100 of them.
    const groups = batches.reduce(
      (sum, batch) =>
        sum +
        new Set(
          batch.map((row) => {
            const [at, , key, , , tool] = JSON.parse(row) as [number, number, string, string, string, string];
            return `${Math.floor(at / 3_600_000)}|${tool}|${key}`;
          }),
        ).size,
      0,
    );
    expect(rowsWritten).toBeLessThanOrEqual(3 * records + groups);

    const pagesAfter = await databaseBytes();
    const lengths = await env.DB.prepare(
      "SELECT AVG(length(key_id) + length(session_id) + length(tool_call_id) + length(tool) + length(coalesce(toolset, '')) + length(arguments) + length(arguments_sha256) + length(coercions) + 8 * 10) AS bytes FROM audit_records WHERE key_id LIKE 'key-cap-%'",
    ).first<{ bytes: number }>();
    const { results } = await env.DB.prepare("SELECT * FROM audit_records WHERE key_id LIKE 'key-cap-%'").all<AuditRow>();
    const archived = await gzipLines(results.map((row) => JSON.stringify(toWireRecord(fromRow(row)))));
    console.log(
      JSON.stringify({
        records,
        seconds: Number(seconds.toFixed(3)),
        recordsPerSecond: Math.round(records / seconds),
        rowsWrittenPerSecond: Math.round(rowsWritten / seconds),
        rowsWrittenPerRecord: rowsWritten / records,
        // The table and both indexes, as the database file grew (D1's meta.size_after; dbstat and PRAGMA page_count are refused).
        storedBytesPerRecord: pagesBefore === null || pagesAfter === null ? null : Math.round((pagesAfter - pagesBefore) / records),
        rawBytesPerRecord: Math.round(lengths?.bytes ?? 0),
        archivedGzipBytesPerRecord: Math.round(archived.byteLength / records),
      }),
    );
  });
});

/** The database's size as D1 reports it after a query (`meta.size_after`), or null where it does not. */
async function databaseBytes(): Promise<number | null> {
  const { meta } = await env.DB.prepare("SELECT 1").run();
  return typeof meta.size_after === "number" ? meta.size_after : null;
}
