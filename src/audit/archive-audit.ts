/**
 * Archival: the daily cron moves audit records older than AUDIT_ARCHIVE_AFTER_DAYS from D1 to the
 * AUDIT_ARCHIVE R2 bucket as gzip-compressed NDJSON (one record per line, in the API's wire shape,
 * so an archive reads like an export), and deletes them from D1 only once R2 has them.
 *
 * The unit of work is a chunk: the oldest records of one UTC day, at most `chunkRows`, in (at, rid)
 * order. Each chunk is written, read back (head), and only then its exact rows deleted, in one
 * DELETE statement (atomic). A run that stops anywhere leaves either the chunk's object and all its
 * rows (the next run reads the same oldest rows, names the object after the same first record and
 * overwrites it with the same content), or the object and none of the rows. So a crash never loses
 * a record and never stores one twice. Whole days only: a day is archived once it is entirely
 * older than the cutoff, when nothing more arrives for it (queue retries end after about 3 days).
 */
import { retentionCutoff } from "../storage/delete-older-than.ts";
import { archiveChunkKey, DAY_MS, dayStart } from "./audit-archive-keys.ts";
import { type AuditLayout, withAuditLayout } from "./audit-layout.ts";
import { toWireRecord } from "./audit-wire.ts";
import { gzipLines } from "./gzip-lines.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** The part of R2 archival and export use; tests wrap it to inject faults. */
export type AuditArchiveBucket = Pick<R2Bucket, "put" | "head" | "get" | "list">;

/**
 * Records per object. About 0.3 KB each once compressed, so an object stays well under a
 * megabyte, the DELETE's key list (one JSON parameter) under 100 KB, and D1's reply small.
 */
export const ARCHIVE_CHUNK_ROWS = 2_000;
/**
 * Chunks per run. Each costs 4 subrequests (read, put, head, delete): 800 of a cron invocation's
 * 1,000 on the Workers paid plan, and 400,000 records a day. A bigger backlog carries over to the
 * next run; docs/scale.md says when to run the cron more often.
 */
export const ARCHIVE_CHUNKS_PER_RUN = 200;

export interface ArchiveOptions {
  /** Records older than this many days (whole UTC days before that point) are archived. */
  afterDays: number;
  /** The run's time, epoch ms (the cron's scheduledTime). */
  now: number;
  chunkRows?: number;
  maxChunks?: number;
  /** Which audit shard `db` is (audit-shards.ts): its objects go to the day's `s<n>/` folder. */
  shard?: number;
}

export interface ArchiveResult {
  /** Records moved to R2 and deleted from D1. */
  archived: number;
  /** Objects written. */
  objects: number;
  /** False when the run stopped at `maxChunks` with records still due. */
  done: boolean;
}

/**
 * Moves every record of a UTC day that ended `afterDays` before `now` to R2, oldest first.
 * Rejects (leaving the current chunk's rows in D1) when R2 or D1 fails.
 *
 * @example await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 7, now: controller.scheduledTime });
 */
export function archiveAudit(
  db: AuditDatabase,
  bucket: AuditArchiveBucket,
  { afterDays, now, chunkRows = ARCHIVE_CHUNK_ROWS, maxChunks = ARCHIVE_CHUNKS_PER_RUN, shard = 0 }: ArchiveOptions,
): Promise<ArchiveResult> {
  const cutoff = dayStart(retentionCutoff(afterDays, now));
  return withAuditLayout(async function archiveChunks(layout) {
    const result: ArchiveResult = { archived: 0, objects: 0, done: false };
    for (let i = 0; i < maxChunks; i++) {
      const moved = await archiveChunk(db, bucket, layout, cutoff, chunkRows, shard);
      if (moved === 0) return { ...result, done: true };
      result.archived += moved;
      result.objects += 1;
    }
    return result;
  });
}

/** Archives the oldest due chunk; resolves to its record count (0: nothing is due). */
async function archiveChunk(
  db: AuditDatabase,
  bucket: AuditArchiveBucket,
  layout: AuditLayout,
  cutoff: number,
  chunkRows: number,
  shard: number,
): Promise<number> {
  const { results } = await db
    .prepare(`SELECT * FROM ${layout.table} WHERE at < ? ORDER BY at, ${layout.tie} LIMIT ?`)
    .bind(cutoff, chunkRows)
    .all<Record<string, unknown>>();
  const first = results[0];
  if (first === undefined) return 0;
  // A chunk never spans two days, so every object sits in its day's folder.
  const dayEnd = dayStart(first.at as number) + DAY_MS;
  const rows = results.filter((row) => (row.at as number) < dayEnd);
  const key = archiveChunkKey({ at: first.at as number, tie: first[layout.tie] as number | string }, shard);
  const body = await gzipLines(rows.map((row) => JSON.stringify(toWireRecord(layout.fromRow(row)))));
  const records = String(rows.length);
  await bucket.put(key, body, { httpMetadata: { contentType: "application/x-ndjson", contentEncoding: "gzip" }, customMetadata: { records } });
  const stored = await bucket.head(key);
  if (stored === null || stored.size !== body.byteLength || stored.customMetadata?.records !== records) {
    throw new Error(
      `audit archive: ${key} is not in R2 as written (${stored === null ? "missing" : `${stored.size} bytes, ${stored.customMetadata?.records} records`}); its ${records} records stay in D1`,
    );
  }
  const keys = JSON.stringify(rows.map((row) => [row.at, row[layout.tie]]));
  await db.prepare(`DELETE FROM ${layout.table} WHERE (at, ${layout.tie}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`).bind(keys).run();
  return rows.length;
}
