/**
 * A Schedule object's storage: its record and its firing log under two keys of the object's
 * key-value storage (both small; the log keeps the newest FIRINGS_KEPT entries), written together
 * so a firing's start and its log entry are one atomic put.
 */
import type { FiringEntry, ScheduleRecord } from "./schedule-types.ts";

/** The schedule itself (ScheduleRecord). */
export const SCHEDULE_RECORD_KEY = "schedule";
/** Its firing log (FiringEntry[], newest first). */
export const SCHEDULE_FIRINGS_KEY = "firings";
/** Entries kept in the log; older ones are dropped (the runs themselves stay until their retention). */
export const FIRINGS_KEPT = 50;

export class ScheduleStore {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  async record(): Promise<ScheduleRecord | undefined> {
    return this.#storage.get<ScheduleRecord>(SCHEDULE_RECORD_KEY);
  }

  async firings(): Promise<FiringEntry[]> {
    return (await this.#storage.get<FiringEntry[]>(SCHEDULE_FIRINGS_KEY)) ?? [];
  }

  /** Writes the record and, when given, log entries (each replacing the entry of the same firing time). */
  async save(record: ScheduleRecord, entries: readonly FiringEntry[] = []): Promise<void> {
    if (entries.length === 0) return this.#storage.put(SCHEDULE_RECORD_KEY, record);
    const log = await this.firings();
    for (const entry of entries) {
      const at = log.findIndex((e) => e.at === entry.at);
      if (at >= 0) log[at] = entry;
      else log.push(entry);
    }
    log.sort((a, b) => b.at - a.at);
    await this.#storage.put({ [SCHEDULE_RECORD_KEY]: record, [SCHEDULE_FIRINGS_KEY]: log.slice(0, FIRINGS_KEPT) });
  }

  async clear(): Promise<void> {
    await this.#storage.deleteAlarm();
    await this.#storage.deleteAll();
  }
}
