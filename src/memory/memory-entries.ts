/**
 * The rules of the `memory` tool's two stores, as Hermes has them (reference hermes-tools.md §7),
 * as pure functions over a store's entries: the Durable Object applies them in one synchronous
 * step, so a budget check and the write it allows cannot be interleaved.
 *
 * Entries are identified the way Hermes identifies them: by a substring (`old_text`) that must
 * pick one distinct entry, never by an id. Identical duplicates are one entry for matching.
 */

export const MEMORY_TARGETS = ["memory", "user"] as const;
export type MemoryTarget = (typeof MEMORY_TARGETS)[number];

/**
 * Character budgets, Hermes's defaults (`memory.memory_char_limit`, `memory.user_char_limit`):
 * what an agent platform can afford to put in every prompt.
 */
export const MEMORY_CHAR_LIMITS: Readonly<Record<MemoryTarget, number>> = { memory: 2200, user: 1375 };

/** Usage is measured on the entries joined with Hermes's delimiter, as its MEMORY.md holds them. */
export const ENTRY_DELIMITER = "\n§\n";

/** How much of a matching entry an ambiguous-match error shows (Hermes: 80 characters and `...`). */
const PREVIEW_CHARS = 80;

export type MemoryChange = { action: "add"; content: string } | { action: "replace"; oldText: string; content: string } | { action: "remove"; oldText: string };

/** What a change did to a store's entries, or why it was refused (the entries are then unchanged). */
export type ChangeResult =
  | { ok: true; entries: string[]; changed: boolean; message: string }
  | { ok: false; reason: "budget_exceeded"; message: string }
  | { ok: false; reason: "no_match"; message: string; index?: number }
  | { ok: false; reason: "ambiguous_match"; message: string; matchCount: number; matches: string[]; index?: number };

/** Characters as Hermes counts them (Python `len`: code points, so an emoji is one). */
export function countChars(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** A store's usage: its entries joined with the delimiter. */
export function usedChars(entries: readonly string[]): number {
  return countChars(entries.join(ENTRY_DELIMITER));
}

const preview = (entry: string): string => {
  const points = [...entry];
  return points.length > PREVIEW_CHARS ? `${points.slice(0, PREVIEW_CHARS).join("")}...` : entry;
};

/**
 * Applies `changes` in order to `entries` (never mutated) under `limit` characters, all or
 * nothing: as in Hermes's `operations`, the budget is checked only against the final state, so
 * a batch may remove before it adds. A change that matches no entry, or several, refuses the
 * batch and says which (`index`).
 */
export function applyMemoryChanges(entries: readonly string[], changes: readonly MemoryChange[], limit: number, target: MemoryTarget): ChangeResult {
  let next = [...entries];
  const messages: string[] = [];
  for (const [index, change] of changes.entries()) {
    const step = applyOne(next, change, target);
    if (!step.ok) return changes.length === 1 ? step : { ...step, index, message: `Change ${index} (${change.action}): ${step.message}` };
    next = step.entries;
    messages.push(step.message);
  }
  const changed = next.length !== entries.length || next.some((entry, i) => entry !== entries[i]);
  const message = changes.length === 1 ? (messages[0] ?? "") : `Applied ${changes.length} changes to ${target}.`;
  if (!changed) return { ok: true, entries: next, changed, message };
  const before = usedChars(entries);
  const after = usedChars(next);
  if (after > limit && after > before) {
    return {
      ok: false,
      reason: "budget_exceeded",
      message: `${target} is at ${before}/${limit} chars; ${changes.length === 1 ? "this change" : "these changes"} would bring it to ${after}/${limit}, over the limit, so nothing was changed. Consolidate now: remove entries that no longer matter or replace several with one shorter entry, then try again.`,
    };
  }
  return { ok: true, entries: next, changed, message };
}

type MatchFailure = Extract<ChangeResult, { reason: "no_match" | "ambiguous_match" }>;
type StepResult = { ok: true; entries: string[]; message: string } | MatchFailure;

function applyOne(entries: string[], change: MemoryChange, target: MemoryTarget): StepResult {
  if (change.action === "add") {
    if (entries.includes(change.content)) return { ok: true, entries, message: "Entry already exists (no duplicate added)." };
    return { ok: true, entries: [...entries, change.content], message: `Added to ${target}.` };
  }
  const found = findEntry(entries, change.oldText, target);
  if (!found.ok) return found;
  if (change.action === "remove") return { ok: true, entries: entries.filter((_, i) => i !== found.index), message: `Removed from ${target}.` };
  if (entries[found.index] === change.content) return { ok: true, entries, message: "The entry already reads that way (nothing changed)." };
  // A replacement equal to another entry would make a duplicate, which Hermes drops on load.
  return {
    ok: true,
    entries: entries.flatMap((entry, i) => (i === found.index ? [change.content] : entry === change.content ? [] : [entry])),
    message: `Replaced in ${target}.`,
  };
}

/** The one distinct entry containing `oldText`, or why there is none. */
function findEntry(entries: readonly string[], oldText: string, target: MemoryTarget): { ok: true; index: number } | MatchFailure {
  const indexes = entries.flatMap((entry, i) => (entry.includes(oldText) ? [i] : []));
  const distinct = [...new Set(indexes.map((i) => entries[i] ?? ""))];
  const first = indexes[0];
  if (first === undefined) {
    return { ok: false, reason: "no_match", message: `No entry in ${target} contains ${JSON.stringify(oldText)}; nothing was changed.` };
  }
  if (distinct.length > 1) {
    return {
      ok: false,
      reason: "ambiguous_match",
      message: `${JSON.stringify(oldText)} matches ${distinct.length} different entries in ${target}; nothing was changed. Be more specific: pass a longer part of the one entry you mean.`,
      matchCount: distinct.length,
      matches: distinct.map(preview),
    };
  }
  return { ok: true, index: first };
}
