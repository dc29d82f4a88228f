/**
 * Reads and writes of one Run object's storage. Every function is synchronous (the object's SQL
 * API is), so a step's record, messages and events are written with no await between them and
 * land together in the object's next write batch.
 */
import type { Message, RunEvent, RunEventType, RunRecord } from "./run-types.ts";
import { RUN_EVENTS_TABLE, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE } from "./run-schema.ts";

export function loadRecord(sql: SqlStorage): RunRecord | undefined {
  const row = sql.exec<{ record: string }>(`SELECT record FROM ${RUN_RECORD_TABLE} WHERE id = 'run'`).toArray()[0];
  return row === undefined ? undefined : (JSON.parse(row.record) as RunRecord);
}

export function saveRecord(sql: SqlStorage, record: RunRecord): void {
  sql.exec(`INSERT INTO ${RUN_RECORD_TABLE} (id, record) VALUES ('run', ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record`, JSON.stringify(record));
}

export function loadMessages(sql: SqlStorage): Message[] {
  return sql.exec<{ message: string }>(`SELECT message FROM ${RUN_MESSAGES_TABLE} ORDER BY seq`).toArray().map((row) => JSON.parse(row.message) as Message);
}

export function appendMessages(sql: SqlStorage, messages: readonly Message[]): void {
  const next = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${RUN_MESSAGES_TABLE}`).one().n;
  messages.forEach((message, i) => sql.exec(`INSERT INTO ${RUN_MESSAGES_TABLE} (seq, message) VALUES (?, ?)`, next + i, JSON.stringify(message)));
}

/** Appends an event and returns it with its number. */
export function appendEvent(sql: SqlStorage, type: RunEventType, data: Record<string, unknown>, at = Date.now()): RunEvent {
  const seq = sql.exec<{ n: number }>(`SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM ${RUN_EVENTS_TABLE}`).one().n;
  sql.exec(`INSERT INTO ${RUN_EVENTS_TABLE} (seq, at, type, data) VALUES (?, ?, ?, ?)`, seq, at, type, JSON.stringify(data));
  return { seq, at, type, data };
}

export function eventsAfter(sql: SqlStorage, after: number): RunEvent[] {
  return sql
    .exec<{ seq: number; at: number; type: string; data: string }>(`SELECT seq, at, type, data FROM ${RUN_EVENTS_TABLE} WHERE seq > ? ORDER BY seq`, after)
    .toArray()
    .map((row) => ({ seq: row.seq, at: row.at, type: row.type as RunEvent["type"], data: JSON.parse(row.data) as Record<string, unknown> }));
}
