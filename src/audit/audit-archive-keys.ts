/**
 * Where archived audit records live in R2 (the AUDIT_ARCHIVE bucket; docs/storage.md has the
 * row): one folder per UTC day, one gzip-compressed NDJSON object per chunk of that day's records
 * in (at, rid) order, each named after its first record. Padded numbers make the names sort as
 * the records do, so listing a day's folder gives its chunks in time order.
 */

export const AUDIT_ARCHIVE_PREFIX = "audit/v1/";
export const DAY_MS = 86_400_000;

/** Start of the UTC day holding `at`. */
export function dayStart(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** `audit/v1/<yyyy>/<mm>/<dd>/` of the UTC day holding `at`. */
export function archiveDayPrefix(at: number): string {
  const day = new Date(dayStart(at)).toISOString();
  return `${AUDIT_ARCHIVE_PREFIX}${day.slice(0, 4)}/${day.slice(5, 7)}/${day.slice(8, 10)}/`;
}

/**
 * `audit/v1/<yyyy>/<mm>/<dd>/<at, 15 digits>-<rid, 16 digits>.ndjson.gz`, named after the chunk's
 * first record; the records of audit shard n > 0 (audit-shards.ts) in the day's `s<n>/` folder, so
 * each folder's names sort in time order although shards' records interleave.
 */
export function archiveChunkKey(first: { at: number; tie: number | string }, shard = 0): string {
  const tie = typeof first.tie === "number" ? String(first.tie).padStart(16, "0") : first.tie;
  return `${archiveFolder(first.at, shard)}${String(first.at).padStart(15, "0")}-${tie}.ndjson.gz`;
}

/** The folder of one shard's chunks of the UTC day holding `at`. */
export function archiveFolder(at: number, shard: number): string {
  return `${archiveDayPrefix(at)}${shard === 0 ? "" : `s${shard}/`}`;
}
