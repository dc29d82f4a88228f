/**
 * One Durable Object per API key (`idFromName(keyId)`): the key's two memory stores, kept across
 * sessions in the object's SQLite-backed storage.
 *
 * Why an object and not D1: a budget check and the write it allows must not interleave with
 * another call's write, or two concurrent adds that each fit could together pass the budget
 * (or one could overwrite the other's entry). The object runs one event at a time and its
 * synchronous KV API (`ctx.storage.kv`) has no `await` between the read, the check and the
 * write, so every change is atomic without locks or retries; D1 would need a conditional UPDATE
 * and a retry loop for the same guarantee.
 */
import { DurableObject } from "cloudflare:workers";
import type { MemoryAnswer, MemoryApi, MemorySnapshot, MemoryStoreView } from "./memory-api.ts";
import { applyMemoryChanges, MEMORY_CHAR_LIMITS, type MemoryChange, type MemoryTarget, usedChars } from "./memory-entries.ts";

/** Storage key of one store's entries, a JSON array of strings in order (docs/storage.md). */
export const MEMORY_ENTRIES_KEY_PREFIX = "entries:";
export const memoryEntriesKey = (target: MemoryTarget): string => `${MEMORY_ENTRIES_KEY_PREFIX}${target}`;

export class MemoryStore extends DurableObject<Env> implements MemoryApi {
  /** Both stores as they are now. */
  async read(): Promise<MemorySnapshot> {
    return { memory: this.#view("memory", this.#entries("memory")), user: this.#view("user", this.#entries("user")) };
  }

  /** Applies changes to one store, all or none; a refused batch leaves it as it was. */
  async change(target: MemoryTarget, changes: MemoryChange[]): Promise<MemoryAnswer> {
    const before = this.#entries(target);
    const result = applyMemoryChanges(before, changes, MEMORY_CHAR_LIMITS[target], target);
    if (!result.ok) return { ...result, store: this.#view(target, before) };
    if (result.changed) this.ctx.storage.kv.put(memoryEntriesKey(target), result.entries);
    return { ok: true, changed: result.changed, message: result.message, store: this.#view(target, result.entries) };
  }

  #entries(target: MemoryTarget): string[] {
    return this.ctx.storage.kv.get<string[]>(memoryEntriesKey(target)) ?? [];
  }

  #view(target: MemoryTarget, entries: string[]): MemoryStoreView {
    return { target, entries, chars: usedChars(entries), limit: MEMORY_CHAR_LIMITS[target] };
  }
}
