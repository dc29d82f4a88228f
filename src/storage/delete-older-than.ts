/**
 * The daily cron's retention deletes (audit log, webhook deliveries, the approvals index), in
 * chunks: D1's SQLite has no DELETE ... LIMIT, and small statements keep each well under D1's
 * per-query time limit. A backlog bigger than one run finishes on the following days.
 */

const DAY_MS = 86_400_000;

export interface OlderThan {
  /** A table name constant (never caller input: it is part of the SQL text). */
  table: string;
  /** An indexed epoch-ms column; rows below `cutoff` go. */
  column: string;
  cutoff: number;
  /** A further condition on the rows, as fixed SQL text (`status <> 'pending'`). */
  where?: string;
  /** Rows per DELETE. */
  chunk: number;
  /** DELETEs per run. */
  maxChunks?: number;
  /**
   * The columns that identify a row, for the chunk's sub-select: `rowid` by default; a WITHOUT
   * ROWID table names its primary key (`at, rid`).
   */
  key?: string;
}

/**
 * Deletes rows whose `column` is below `cutoff`; returns how many it deleted.
 *
 * @example await deleteOlderThan(env.DB, { table: AUDIT_TABLE, column: "at", cutoff, chunk: 5_000 });
 */
export async function deleteOlderThan(
  db: Pick<D1Database, "prepare">,
  { table, column, cutoff, where, chunk, maxChunks = 200, key = "rowid" }: OlderThan,
): Promise<number> {
  const condition = where === undefined ? `${column} < ?` : `${column} < ? AND ${where}`;
  const identity = key.includes(",") ? `(${key})` : key;
  const statement = db.prepare(`DELETE FROM ${table} WHERE ${identity} IN (SELECT ${key} FROM ${table} WHERE ${condition} LIMIT ?)`);
  let deleted = 0;
  for (let i = 0; i < maxChunks; i++) {
    const { meta } = await statement.bind(cutoff, chunk).run();
    deleted += meta.changes;
    if (meta.changes < chunk) break;
  }
  return deleted;
}

/** The cutoff `retentionDays` before `now`; throws on a retention that is not a positive number. */
export function retentionCutoff(retentionDays: number, now: number): number {
  if (!Number.isFinite(retentionDays) || retentionDays <= 0) throw new RangeError(`retentionDays must be a positive number, got ${retentionDays}`);
  return now - retentionDays * DAY_MS;
}
