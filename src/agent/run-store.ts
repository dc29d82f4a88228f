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
 * A copy changes only after its write succeeded. Rows written together (a turn's tool results,
 * a start's history) go in one statement (insert-rows.ts).
 *
 * The record stays one row, rewritten whole by each save, steps included. Splitting it (a fixed
 * row, a small state row, a row per finished step) was tried and profiled (scripts/bench/
 * profile.ts --chat, 6 and 19 turns): no difference in the storage's share of CPU, since a
 * statement costs far more than its bytes here, and it wrote one more row per step.
 *
 * The tables are made by the object's first write, not when it starts: any id can be asked about
 * (GET /v1/runs/{id} with a made-up id, a webhook re-run cancelling a run its attempt never
 * started), and a read must not leave storage behind. Until then every read finds no run.
 */
import { insertRows } from "./insert-rows.ts";
import { RUN_EVENTS_TABLE, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE, RUN_SCHEMA_SQL } from "./run-schema.ts";
import type { Message, RunEvent, RunRecord } from "./run-types.ts";

const MESSAGE_ROWS = `INSERT INTO ${RUN_MESSAGES_TABLE} (seq, message) VALUES`;
const EVENT_ROWS = `INSERT INTO ${RUN_EVENTS_TABLE} (seq, at, type, data) VALUES`;

export class RunStore {
  readonly #sql: SqlStorage;
  /** undefined: not read yet; null: no run here. */
  #record: RunRecord | null | undefined;
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
    if (this.#record === undefined) {
      const row = !this.#tables ? undefined : this.#sql.exec<{ record: string }>(`SELECT record FROM ${RUN_RECORD_TABLE} WHERE id = 'run'`).toArray()[0];
      this.#record = row === undefined ? null : (JSON.parse(row.record) as RunRecord);
    }
    return this.#record ?? undefined;
  }

  save(record: RunRecord): void {
    this.#makeTables();
    this.#sql.exec(
      `INSERT INTO ${RUN_RECORD_TABLE} (id, record) VALUES ('run', ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record`,
      JSON.stringify(record),
    );
    this.#record = record;
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
    insertRows(
      this.#sql,
      MESSAGE_ROWS,
      "",
      2,
      texts.flatMap((text, i) => [transcript.texts.length + i, text]),
    );
    transcript.parsed.push(...messages);
    transcript.texts.push(...texts);
  }

  /** Appends events, in one statement, and returns them with their numbers. */
  appendEvents(events: readonly Pick<RunEvent, "type" | "data">[], at = Date.now()): RunEvent[] {
    const first = this.lastSeq() + 1;
    const stored = events.map((event, i): RunEvent => ({ seq: first + i, at, type: event.type, data: event.data }));
    if (stored.length === 0) return stored;
    this.#makeTables();
    insertRows(
      this.#sql,
      EVENT_ROWS,
      "",
      4,
      stored.flatMap((event) => [event.seq, at, event.type, JSON.stringify(event.data)]),
    );
    this.#lastSeq = first + stored.length - 1;
    return stored;
  }

  /** Drops the copies in memory, after the storage under them (tables included) was deleted. */
  forget(): void {
    this.#tables = false;
    this.#record = undefined;
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
      const texts = !this.#tables
        ? []
        : this.#sql
            .exec<{ message: string }>(`SELECT message FROM ${RUN_MESSAGES_TABLE} ORDER BY seq`)
            .toArray()
            .map((row) => row.message);
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
