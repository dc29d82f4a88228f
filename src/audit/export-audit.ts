/**
 * A window of the audit log as NDJSON, oldest first, from D1 and the R2 archive alike, streamed:
 * day by day, each day's archived chunks (decompressed as they are read) merged with the day's rows
 * still in D1 (read in keyset pages), so memory holds a page, never the window.
 */

import type { AuditArchiveBucket } from "./archive-audit.ts";
import { archiveFolder, DAY_MS, dayStart } from "./audit-archive-keys.ts";
import { type AuditFilters, filterSql } from "./audit-filters.ts";
import { withAuditLayout } from "./audit-layout.ts";
import type { AuditShard } from "./audit-shards.ts";
import { type AuditRecordWire, toWireRecord } from "./audit-wire.ts";
import { gunzipLines } from "./gzip-lines.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** Records per D1 page. */
export const EXPORT_PAGE_ROWS = 500;
/** Lines per stream chunk handed to the response. */
const LINES_PER_CHUNK = 100;

export type ExportFilters = AuditFilters & { since: number; until: number };

interface Line {
  at: number;
  rid: number;
  text: string;
}

const encoder = new TextEncoder();

/**
 * The records matching `filters` in [since, until), oldest first, one JSON record (the API's
 * wire shape) per line. A record both archived and still in D1 (a run stopped between writing its
 * chunk and deleting the rows) is sent once.
 *
 * `shards` are the audit databases to read: every shard for an admin, the key's own for a key
 * (audit-shards.ts); each shard's archive folder is read beside it.
 *
 * @example return new Response(exportAudit(shardsToRead(env), env.AUDIT_ARCHIVE, { since, until }), { headers: { "content-type": "application/x-ndjson" } });
 */
export function exportAudit(shards: readonly AuditShard[], bucket: AuditArchiveBucket | undefined, filters: ExportFilters): ReadableStream<Uint8Array> {
  const lines = exportLines(shards, bucket, filters);
  let lastAt: number | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const texts: string[] = [];
      let failure: unknown;
      try {
        while (texts.length < LINES_PER_CHUNK) {
          const next = await lines.next();
          if (next.done === true) break;
          texts.push(next.value.text);
          lastAt = next.value.at;
        }
      } catch (error) {
        failure = error;
      }
      if (failure !== undefined) {
        // The 200 and the lines before are already sent, so the failure can only be told in the
        // body: a last line a reader tells from a record by its `error` member, with where to resume.
        console.error(`audit export: ${String(failure)}`);
        texts.push(JSON.stringify(exportFailureLine(filters, lastAt)));
      }
      if (texts.length > 0) controller.enqueue(encoder.encode(`${texts.join("\n")}\n`));
      if (failure !== undefined || texts.length < LINES_PER_CHUNK) controller.close();
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

/** The code of the line that ends an export cut short by a storage failure. */
export const EXPORT_INCOMPLETE = "EXPORT_INCOMPLETE";

export interface ExportFailureLine {
  error: { code: typeof EXPORT_INCOMPLETE; message: string; resume_since: string };
}

/**
 * The line that ends an export a storage failure cut short. `resume_since` is the time of the last
 * record sent, inclusive, so a retry from it repeats the records of that millisecond: the reader
 * drops the ids it already has. The storage error itself goes to the log, not to the caller.
 */
function exportFailureLine(filters: ExportFilters, lastAt: number | undefined): ExportFailureLine {
  const resume = new Date(lastAt ?? filters.since).toISOString();
  return {
    error: {
      code: EXPORT_INCOMPLETE,
      message: `the export stopped early: audit storage failed while reading; request since=${resume} again to get the rest`,
      resume_since: resume,
    },
  };
}

async function* exportLines(shards: readonly AuditShard[], bucket: AuditArchiveBucket | undefined, filters: ExportFilters): AsyncGenerator<Line> {
  for (let day = dayStart(filters.since); day < filters.until; day += DAY_MS) {
    const archived = bucket === undefined ? [] : shards.map((shard) => archivedLines(bucket, archiveFolder(day, shard.index), filters));
    const streams = [...archived, ...shards.map((shard) => storedLines(shard.db, day, filters))];
    yield* streams.reduce(mergeByKey, empty());
  }
}

/** Two streams each in (at, rid) order, as one in that order; a key in both comes once. */
async function* mergeByKey(a: AsyncGenerator<Line>, b: AsyncGenerator<Line>): AsyncGenerator<Line> {
  let x = await a.next();
  let y = await b.next();
  while (x.done !== true || y.done !== true) {
    if (y.done === true || (x.done !== true && compare(x.value, y.value) <= 0)) {
      if (x.done === true) break;
      if (y.done !== true && compare(x.value, y.value) === 0) y = await b.next();
      yield x.value;
      x = await a.next();
    } else {
      yield y.value;
      y = await b.next();
    }
  }
}

const compare = (l: Line, r: Line) => l.at - r.at || l.rid - r.rid;

async function* empty(): AsyncGenerator<Line> {}

/** A day folder's archived records in the window and scope, chunk after chunk (their names sort in time order). */
async function* archivedLines(bucket: AuditArchiveBucket, prefix: string, filters: ExportFilters): AsyncGenerator<Line> {
  let cursor: string | undefined;
  do {
    // The delimiter keeps the day's own objects apart from its shards' `s<n>/` folders.
    const listing = await bucket.list({ prefix, delimiter: "/", ...(cursor === undefined ? {} : { cursor }) });
    for (const [i, object] of listing.objects.entries()) {
      // Chunks are named after their first record and sort in time order: one starting at or
      // after `until` ends the window, and one whose successor starts before `since` holds nothing
      // in it, so neither is fetched (each fetch is a subrequest and a decompression).
      const first = chunkStart(object.key);
      if (first !== undefined && first >= filters.until) return;
      const next = listing.objects[i + 1];
      const nextFirst = next === undefined ? undefined : chunkStart(next.key);
      if (nextFirst !== undefined && nextFirst < filters.since) continue;
      const body = await bucket.get(object.key);
      if (body === null) continue;
      for await (const text of gunzipLines(body.body)) {
        const record = JSON.parse(text) as AuditRecordWire;
        const [at, rid] = record.id.split("-").map(Number);
        if (at === undefined || rid === undefined || !matches(record, at, filters)) continue;
        yield { at, rid, text };
      }
    }
    cursor = listing.truncated ? listing.cursor : undefined;
  } while (cursor !== undefined);
}

/** The time of a chunk's first record, from its name (archiveChunkKey); undefined for another name. */
function chunkStart(key: string): number | undefined {
  const match = /\/(\d{15})-[^/]*$/.exec(key);
  return match === null ? undefined : Number(match[1]);
}

/**
 * The day's records in D1 in the window and scope, oldest first. SQL narrows by what an index
 * serves (key, session, time); tool, status and error code are checked here, as for archived lines,
 * so every page reads a bounded number of rows.
 */
async function* storedLines(db: AuditDatabase, day: number, filters: ExportFilters): AsyncGenerator<Line> {
  const { indexed } = filterSql({ ...filters, since: Math.max(filters.since, day), until: Math.min(filters.until, day + DAY_MS) });
  let after: { at: number; tie: number | string } | undefined;
  for (;;) {
    const page = await withAuditLayout(async (layout) => {
      const conditions = [...indexed.conditions, ...(after === undefined ? [] : [`(at, ${layout.tie}) > (?, ?)`])];
      const params = [...indexed.params, ...(after === undefined ? [] : [after.at, after.tie]), EXPORT_PAGE_ROWS];
      const sql = `SELECT * FROM ${layout.table} WHERE ${conditions.join(" AND ")} ORDER BY at, ${layout.tie} LIMIT ?`;
      const { results } = await db
        .prepare(sql)
        .bind(...params)
        .all<Record<string, unknown>>();
      const last = results.at(-1);
      return {
        records: results.map(layout.fromRow),
        last: last === undefined ? undefined : { at: last.at as number, tie: last[layout.tie] as number | string },
      };
    });
    for (const record of page.records) {
      const wire = toWireRecord(record);
      if (matches(wire, record.at, filters)) yield { at: record.at, rid: record.rid, text: JSON.stringify(wire) };
    }
    if (page.records.length < EXPORT_PAGE_ROWS || page.last === undefined) return;
    after = page.last;
  }
}

function matches(r: AuditRecordWire, at: number, f: ExportFilters): boolean {
  return (
    at >= f.since &&
    at < f.until &&
    (f.scopeKeyId === undefined || r.key_id === f.scopeKeyId) &&
    (f.keyId === undefined || r.key_id === f.keyId) &&
    (f.sessionId === undefined || r.session_id === f.sessionId) &&
    (f.tool === undefined || r.tool === f.tool) &&
    (f.status === undefined || r.status === f.status) &&
    (f.errorCode === undefined || r.error_code === f.errorCode)
  );
}
