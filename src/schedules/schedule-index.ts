/**
 * The D1 index of schedules (migrations/0018_schedules.sql): one row per schedule, written by its
 * Schedule object at every change, so a key's schedules list without waking each object. The
 * object is the truth; a failed write is logged and healed by the object's next change.
 */
import type { ScheduleRecord, ScheduleStatus } from "./schedule-types.ts";

export const SCHEDULES_TABLE = "schedules";

export interface ScheduleRow {
  id: string;
  key_id: string;
  name: string;
  status: ScheduleStatus;
  status_reason: string | null;
  next_fire_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Writes the schedule's row; never rejects. */
export async function writeScheduleIndex(db: D1Database, r: ScheduleRecord): Promise<void> {
  try {
    await db
      .prepare(
        `INSERT INTO ${SCHEDULES_TABLE} (id, key_id, name, status, status_reason, next_fire_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, status_reason = excluded.status_reason, next_fire_at = excluded.next_fire_at, updated_at = excluded.updated_at
         WHERE excluded.updated_at >= ${SCHEDULES_TABLE}.updated_at`,
      )
      .bind(r.id, r.keyId, r.name, r.status, r.statusReason, r.nextFireAt, r.createdAt, r.updatedAt)
      .run();
  } catch (error) {
    console.error(`schedule ${r.id}: D1 index write failed (${r.status}): ${String(error)}`);
  }
}

/** Removes a deleted schedule's row. */
export async function deleteScheduleIndex(db: D1Database, id: string): Promise<void> {
  await db.prepare(`DELETE FROM ${SCHEDULES_TABLE} WHERE id = ?`).bind(id).run();
}

/** Schedules newest first: one key's, or everyone's for an admin (`keyId` undefined). */
export async function listScheduleRows(db: D1Database, keyId: string | undefined, limit: number): Promise<ScheduleRow[]> {
  const where = keyId === undefined ? "" : " WHERE key_id = ?";
  const { results } = await db
    .prepare(`SELECT * FROM ${SCHEDULES_TABLE}${where} ORDER BY created_at DESC, id LIMIT ?`)
    .bind(...(keyId === undefined ? [] : [keyId]), limit)
    .all<ScheduleRow>();
  return results;
}

/** How many schedules a key has (the SCHEDULES_PER_KEY cap). */
export async function countSchedules(db: D1Database, keyId: string): Promise<number> {
  const row = await db.prepare(`SELECT COUNT(*) AS n FROM ${SCHEDULES_TABLE} WHERE key_id = ?`).bind(keyId).first<{ n: number }>();
  return row?.n ?? 0;
}
