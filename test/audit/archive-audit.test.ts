import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type AuditArchiveBucket, archiveAudit } from "../../src/audit/archive-audit.ts";
import { archiveChunkKey, archiveDayPrefix } from "../../src/audit/audit-archive-keys.ts";
import { type AuditRecord, auditRecordId } from "../../src/audit/audit-record.ts";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import type { AuditRecordWire } from "../../src/audit/audit-wire.ts";
import { gunzipLines } from "../../src/audit/gzip-lines.ts";
import { archiveOrExpireAudit } from "../../src/audit/retention.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import { migrateAuditShards } from "../support/migrate-audit-shards.ts";
import { auditRecord, countRows, flakyDatabase } from "./support.ts";

const DAY = 86_400_000;

/** Every archived record under a day's folder, in object-name order then line order. */
async function archivedIds(day: number): Promise<string[]> {
  const listing = await env.AUDIT_ARCHIVE.list({ prefix: archiveDayPrefix(day) });
  const ids: string[] = [];
  for (const object of listing.objects) {
    const body = await env.AUDIT_ARCHIVE.get(object.key);
    if (body === null) continue;
    for await (const line of gunzipLines(body.body)) ids.push((JSON.parse(line) as AuditRecordWire).id);
  }
  return ids;
}

const ordered = (records: AuditRecord[]) => [...records].sort((a, b) => a.at - b.at || a.rid - b.rid).map(auditRecordId);

/** The real bucket, with `put` failing while `failing()` says so (R2 unavailable). */
function flakyBucket(failing: () => boolean): AuditArchiveBucket & { puts: number } {
  const bucket = {
    puts: 0,
    put: (...args: Parameters<R2Bucket["put"]>) => {
      bucket.puts += 1;
      if (failing()) return Promise.reject(new Error("R2: injected failure"));
      return env.AUDIT_ARCHIVE.put(...args);
    },
    head: (key: string) => env.AUDIT_ARCHIVE.head(key),
    get: (key: string) => env.AUDIT_ARCHIVE.get(key),
    list: (options?: R2ListOptions) => env.AUDIT_ARCHIVE.list(options),
  };
  return bucket as AuditArchiveBucket & { puts: number };
}

beforeAll(migrateAuditShards);

describe("audit archival to R2", () => {
  it("moves whole days older than the archive age to gzip NDJSON in R2, in order, then deletes them from D1", async () => {
    const now = Date.parse("2032-03-20T03:17:00Z");
    const day = Date.parse("2032-03-10T00:00:00Z");
    const old = [0, 1, 1, 5_000, DAY - 1].map((offset, i) => auditRecord({ keyId: "key-arch-a", at: day + offset, tool: `t${i}` }));
    // 20 March minus 7 days is 13 March 03:17; 13 March is not a whole day before that, so it stays.
    const recent = [auditRecord({ keyId: "key-arch-a", at: Date.parse("2032-03-13T01:00:00Z") })];
    await writeAuditRecords(env.DB, [...old, ...recent]);

    const result = await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now, chunkRows: 2 });

    expect(result).toEqual({ archived: 5, objects: 3, done: true });
    expect(await archivedIds(day)).toEqual(ordered(old));
    expect(await countRows("key_id = ?", "key-arch-a")).toBe(1);
    const first = [...old].sort((a, b) => a.at - b.at || a.rid - b.rid)[0];
    const object = await env.AUDIT_ARCHIVE.head(archiveChunkKey({ at: day, tie: first?.rid ?? 0 }));
    expect(object?.httpMetadata?.contentType).toBe("application/x-ndjson");
    expect(object?.customMetadata).toEqual({ records: "2" });
  });

  it("writes each line in the API's wire shape", async () => {
    const at = Date.parse("2032-02-01T12:00:00Z");
    const record = auditRecord({
      keyId: "key-arch-wire",
      at,
      status: "error",
      errorCode: "TOOL_ERROR",
      errorMessage: "upstream said no",
      arguments: '{"q":1}',
    });
    await writeAuditRecords(env.DB, [record]);
    await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now: Date.parse("2032-02-10T00:00:00Z") });
    const body = await env.AUDIT_ARCHIVE.get(archiveChunkKey({ at, tie: record.rid }));
    const lines: unknown[] = [];
    for await (const line of gunzipLines(body?.body ?? new Blob().stream())) lines.push(JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        id: auditRecordId(record),
        time: "2032-02-01T12:00:00.000Z",
        key_id: "key-arch-wire",
        arguments: { q: 1 },
        status: "error",
        error_code: "TOOL_ERROR",
        error_message: "upstream said no",
      }),
    ]);
  });

  it("leaves every row in D1 when R2 refuses the write, and archives them on the next run", async () => {
    const day = Date.parse("2032-01-05T00:00:00Z");
    const records = [1, 2, 3].map((h) => auditRecord({ keyId: "key-arch-fail", at: day + h * 3_600_000 }));
    await writeAuditRecords(env.DB, records);
    const now = Date.parse("2032-01-20T00:00:00Z");

    let down = true;
    const bucket = flakyBucket(() => down);
    await expect(archiveAudit(env.DB, bucket, { afterDays: 7, now })).rejects.toThrow(/injected/);
    expect(await countRows("key_id = ?", "key-arch-fail")).toBe(3);
    expect(await archivedIds(day)).toEqual([]);

    down = false;
    expect((await archiveAudit(env.DB, bucket, { afterDays: 7, now })).archived).toBe(3);
    expect(await countRows("key_id = ?", "key-arch-fail")).toBe(0);
    expect(await archivedIds(day)).toEqual(ordered(records));
  });

  it("a run that stopped after writing a chunk but before deleting it rewrites the same object: nothing lost, nothing twice", async () => {
    const day = Date.parse("2031-12-01T00:00:00Z");
    const records = [10, 20, 30, 40].map((m) => auditRecord({ keyId: "key-arch-crash", at: day + m * 60_000 }));
    await writeAuditRecords(env.DB, records);
    const now = Date.parse("2031-12-15T00:00:00Z");

    // The crash: R2 has the first chunk, D1 still has all its rows (the DELETE never ran).
    const crashed = {
      put: (...args: Parameters<R2Bucket["put"]>) => env.AUDIT_ARCHIVE.put(...args),
      head: () => Promise.reject(new Error("worker evicted: injected")),
      get: (key: string) => env.AUDIT_ARCHIVE.get(key),
      list: (options?: R2ListOptions) => env.AUDIT_ARCHIVE.list(options),
    } as AuditArchiveBucket;
    await expect(archiveAudit(env.DB, crashed, { afterDays: 7, now, chunkRows: 3 })).rejects.toThrow(/injected/);
    expect(await countRows("key_id = ?", "key-arch-crash")).toBe(4);
    expect((await env.AUDIT_ARCHIVE.list({ prefix: archiveDayPrefix(day) })).objects).toHaveLength(1);

    expect(await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now, chunkRows: 3 })).toEqual({ archived: 4, objects: 2, done: true });
    expect(await archivedIds(day)).toEqual(ordered(records));
    expect(await countRows("key_id = ?", "key-arch-crash")).toBe(0);
    // And once more: nothing is due, nothing changes.
    expect(await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now, chunkRows: 3 })).toEqual({ archived: 0, objects: 0, done: true });
    expect(await archivedIds(day)).toEqual(ordered(records));
  });

  it("stops after its chunk allowance and carries the rest over to the next run", async () => {
    const day = Date.parse("2031-11-01T00:00:00Z");
    const records = Array.from({ length: 5 }, (_, i) => auditRecord({ keyId: "key-arch-bound", at: day + i * 1000 }));
    await writeAuditRecords(env.DB, records);
    const now = Date.parse("2031-11-12T00:00:00Z");
    expect(await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now, chunkRows: 2, maxChunks: 2 })).toEqual({ archived: 4, objects: 2, done: false });
    expect(await countRows("key_id = ?", "key-arch-bound")).toBe(1);
    expect(await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now, chunkRows: 2, maxChunks: 2 })).toEqual({ archived: 1, objects: 1, done: true });
    expect(await archivedIds(day)).toEqual(ordered(records));
  });

  it("the cron goes on to the other shards when one fails, and still reports the failure", async () => {
    const now = Date.parse("2034-06-30T00:00:00Z");
    const second = env.DB_AUDIT_1;
    if (second === undefined) throw new Error("test setup: DB_AUDIT_1 is bound in vitest.config.ts");
    await writeAuditRecords(second, [auditRecord({ keyId: "key-arch-shards", at: now - 40 * DAY })]);
    const config = { auditRetentionDays: 30, auditArchiveAfterDays: 7 };
    await expect(archiveOrExpireAudit([flakyDatabase(env.DB, () => "before"), second], undefined, config, now)).rejects.toThrow(/shard 0: .*injected/);
    const left = await second.prepare(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE key_id = ?`).bind("key-arch-shards").first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("the cron deletes after retention without a bucket, and with one deletes nothing it has not archived", async () => {
    const now = Date.parse("2033-06-30T00:00:00Z");
    const old = auditRecord({ keyId: "key-arch-cron", at: now - 40 * DAY });
    await writeAuditRecords(env.DB, [old]);
    const config = { auditRetentionDays: 30, auditArchiveAfterDays: 7 };

    const down = flakyBucket(() => true);
    await expect(archiveOrExpireAudit([env.DB], down, config, now)).rejects.toThrow(/injected/);
    expect(await countRows("key_id = ?", "key-arch-cron")).toBe(1);

    // Other tests' leftovers in this file's database are due too, so count this key's rows.
    expect(await archiveOrExpireAudit([env.DB], env.AUDIT_ARCHIVE, config, now)).toBeGreaterThanOrEqual(1);
    expect(await countRows("key_id = ?", "key-arch-cron")).toBe(0);
    expect(await archivedIds(old.at)).toContain(auditRecordId(old));

    const unarchived = auditRecord({ keyId: "key-arch-cron", at: now - 40 * DAY + 1 });
    await writeAuditRecords(env.DB, [unarchived]);
    expect(await archiveOrExpireAudit([env.DB], undefined, config, now)).toBe(1);
    expect(await countRows("key_id = ?", "key-arch-cron")).toBe(0);
    expect(await archivedIds(old.at)).not.toContain(auditRecordId(unarchived));
  });
});
