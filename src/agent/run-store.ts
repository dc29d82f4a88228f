/**
 * Reads and writes of one Run object's storage. Every method is synchronous (the object's SQL
 * API is), so a step's record, messages and events are written with no await between them and
 * land together in the object's next write batch.
 *
 * The record, the transcript and the last event number are read once per instance and then kept
 * in memory: only this object writes its storage, so the copy cannot go stale, and a step then
 * neither re-parses the growing record three times nor re-reads the whole transcript to send it.
 * The transcript is kept as the JSON text it is stored as too, which is what the model request
 * is joined from (model-request-body.ts), so no message is serialised twice.
 * A copy changes only after its write succeeded.
 *
 * The record is stored in parts (run-record-rows.ts), one statement a save: the `state` row, the
 * `start` row only with the run's first save, and a step's row once, when its calls have ended.
 * A run stored by an older version as one `run` row is split into the parts on its first load.
 *
 * The tables are made by the object's first write, not when it starts: any id can be asked about
 * (GET /v1/runs/{id} with a made-up id, a webhook re-run cancelling a run its attempt never
 * started), and a read must not leave storage behind. Until then every read finds no run.
 */
import { insertRows } from "./insert-rows.ts";
import { closedSteps, fixedOf, joinRecord, stateOf, type StoredState } from "./run-record-rows.ts";
import type { Message, RunEvent, RunRecord, RunStep } from "./run-types.ts";
import { LEGACY_RUN_ROW, RUN_EVENTS_TABLE, RUN_FIXED_ROW, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE, RUN_SCHEMA_SQL, RUN_STATE_ROW, RUN_STEP_ROW_PREFIX, stepRowId } from "./run-schema.ts";

const RECORD_ROWS = [`INSERT INTO ${RUN_RECORD_TABLE} (id, record) VALUES`, "ON CONFLICT (id) DO UPDATE SET record = excluded.record"] as const;
const MESSAGE_ROWS = `INSERT INTO ${RUN_MESSAGES_TABLE} (seq, message) VALUES`;
const EVENT_ROWS = `INSERT INTO ${RUN_EVENTS_TABLE} (seq, at, type, data) VALUES`;

export class RunStore {
  readonly #sql: SqlStorage;
  /** undefined: not read yet; null: no run here. */
  #record: RunRecord | null | undefined;
  /** The steps as their rows hold them (by position), so a save writes only the ones that changed. */
  #storedSteps: RunStep[] = [];
  /** Whether the `start` row is written. */
  #fixedStored = false;
  #messages: { parsed: Message[]; texts: string[] } | undefined;
  #lastSeq: number | undefined;
  /** Whether the object's tables exist (made by its first write). */
  #tables: boolean;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#tables = sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, RUN_RECORD_TABLE).toArray().length > 0;
    // An object made by an older version gets the tables added since.
    if (this.#tables) sql.exec(RUN_SCHEMA_SQL);
  }

  /** The run's record, or undefined when no run has started in this object. */
  record(): RunRecord | undefined {
    if (this.#record === undefined) this.#record = this.#tables ? this.#load() : null;
    return this.#record ?? undefined;
  }

  /** Stores the record: its `state` row, and whatever else of it changed since the last save, in one statement. */
  save(record: RunRecord): void {
    this.#makeTables();
    const values: string[] = [];
    if (!this.#fixedStored) values.push(RUN_FIXED_ROW, JSON.stringify(fixedOf(record)));
    const closed = closedSteps(record);
    for (let i = 0; i < closed; i++) {
      const step = record.steps[i];
      if (step !== undefined && step !== this.#storedSteps[i]) values.push(stepRowId(i), JSON.stringify(step));
    }
    values.push(RUN_STATE_ROW, JSON.stringify(stateOf(record, closed)));
    insertRows(this.#sql, ...RECORD_ROWS, 2, values);
    this.#fixedStored = true;
    this.#storedSteps = record.steps.slice(0, closed);
    this.#record = record;
  }

  #load(): RunRecord | null {
    const rows = this.#sql.exec<{ id: string; record: string }>(`SELECT id, record FROM ${RUN_RECORD_TABLE} ORDER BY id`).toArray();
    const part = (id: string) => rows.find((row) => row.id === id)?.record;
    const fixed = part(RUN_FIXED_ROW);
    const state = part(RUN_STATE_ROW);
    if (fixed !== undefined && state !== undefined) {
      this.#storedSteps = rows.filter((row) => row.id.startsWith(RUN_STEP_ROW_PREFIX)).map((row) => JSON.parse(row.record) as RunStep);
      this.#fixedStored = true;
      return joinRecord(JSON.parse(fixed) as Record<string, unknown>, JSON.parse(state) as StoredState, this.#storedSteps);
    }
    const legacy = part(LEGACY_RUN_ROW);
    if (legacy === undefined) return null;
    // Split into its parts with no await in between, so the object's next write batch holds the whole move.
    const record = JSON.parse(legacy) as RunRecord;
    this.save(record);
    this.#sql.exec(`DELETE FROM ${RUN_RECORD_TABLE} WHERE id = ?`, LEGACY_RUN_ROW);
    return record;
  }

  /** The transcript in order; the caller must not change it. */
  messages(): readonly Message[] {
    return this.#transcript().parsed;
  }

  /** The transcript in order, each message as its stored JSON text. */
  messageTexts(): readonly string[] {
    return this.#transcript().texts;
  }

  /** Appends messages to the transcript, in one statement. */
  appendMessages(messages: readonly Message[]): void {
    if (messages.length === 0) return;
    const transcript = this.#transcript();
    this.#makeTables();
    const texts = messages.map((message) => JSON.stringify(message));
    insertRows(this.#sql, MESSAGE_ROWS, "", 2, texts.flatMap((text, i) => [transcript.texts.length + i, text]));
    transcript.parsed.push(...messages);
    transcript.texts.push(...texts);
  }

  /** Appends events, in one statement, and returns them with their numbers. */
  appendEvents(events: readonly Pick<RunEvent, "type" | "data">[], at = Date.now()): RunEvent[] {
    const first = this.lastSeq() + 1;
    const stored = events.map((event, i): RunEvent => ({ seq: first + i, at, type: event.type, data: event.data }));
    if (stored.length === 0) return stored;
    this.#makeTables();
    insertRows(this.#sql, EVENT_ROWS, "", 4, stored.flatMap((event) => [event.seq, at, event.type, JSON.stringify(event.data)]));
    this.#lastSeq = first + stored.length - 1;
    return stored;
  }

  /** Drops the copies in memory, after the storage under them (tables included) was deleted. */
  forget(): void {
    this.#tables = false;
    this.#record = undefined;
    this.#storedSteps = [];
    this.#fixedStored = false;
    this.#messages = undefined;
    this.#lastSeq = undefined;
  }

  /** The number of the last stored event (0 before the first). */
  lastSeq(): number {
    this.#lastSeq ??= !this.#tables ? 0 : this.#sql.exec<{ n: number }>(`SELECT COALESCE(MAX(seq), 0) AS n FROM ${RUN_EVENTS_TABLE}`).one().n;
    return this.#lastSeq;
  }

  #transcript(): { parsed: Message[]; texts: string[] } {
    if (this.#messages === undefined) {
      const texts = !this.#tables ? [] : this.#sql.exec<{ message: string }>(`SELECT message FROM ${RUN_MESSAGES_TABLE} ORDER BY seq`).toArray().map((row) => row.message);
      this.#messages = { parsed: texts.map((text) => JSON.parse(text) as Message), texts };
    }
    return this.#messages;
  }

  eventsAfter(after: number): RunEvent[] {
    if (!this.#tables) return [];
    return this.#sql
      .exec<{ seq: number; at: number; type: string; data: string }>(`SELECT seq, at, type, data FROM ${RUN_EVENTS_TABLE} WHERE seq > ? ORDER BY seq`, after)
      .toArray()
      .map((row) => ({ seq: row.seq, at: row.at, type: row.type as RunEvent["type"], data: JSON.parse(row.data) as Record<string, unknown> }));
  }

  #makeTables(): void {
    if (this.#tables) return;
    this.#sql.exec(RUN_SCHEMA_SQL);
    this.#tables = true;
  }
}
