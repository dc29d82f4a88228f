/**
 * Knuth-Morris-Pratt search, for patch's matching. Why not `String.prototype.indexOf`: V8's
 * search is fast on ordinary text but not linear on chosen input (`"a".repeat(300) + "b" +
 * "a".repeat(300)` against 1 MB of `a` takes about 300 ms in workerd, and the cost grows with
 * the pattern), and one native call cannot be sliced. KMP reads each symbol of the text once,
 * with state that survives a yield, so a 1 MiB pattern against a 10 MiB file is linear and paced.
 */
import type { Pacer } from "./pacer.ts";

/** A sequence of symbols read by index: a text's code units, or a file's lines as ids. */
export interface Symbols {
  length: number;
  at(index: number): number;
  /** Work of reading symbol `index`, for pacing (1 when absent). */
  cost?(index: number): number;
}

/** Symbols of a string: its UTF-16 code units. */
export const codeUnits = (text: string): Symbols => ({ length: text.length, at: (i) => text.charCodeAt(i) });

/** The KMP failure table: for each prefix, the length of its longest proper border. */
async function failureTable(pattern: Symbols, pacer: Pacer): Promise<Int32Array> {
  const table = new Int32Array(pattern.length);
  let k = 0;
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern.at(i);
    while (k > 0 && pattern.at(k) !== c) k = table[k - 1] ?? 0;
    if (pattern.at(k) === c) k++;
    table[i] = k;
    if (pacer.due(1)) await pacer.pause();
  }
  return table;
}

/**
 * Start indexes of `pattern` in `text`, leftmost first and non-overlapping (what repeated
 * `indexOf(pattern, last + pattern.length)` finds), stopping once `max + 1` are found so a caller
 * can tell "more than max" without counting them all.
 */
export async function findAll(text: Symbols, pattern: Symbols, pacer: Pacer, max: number): Promise<number[]> {
  const m = pattern.length;
  const starts: number[] = [];
  if (m === 0 || m > text.length) return starts;
  const table = await failureTable(pattern, pacer);
  let q = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.at(i);
    while (q > 0 && pattern.at(q) !== c) q = table[q - 1] ?? 0;
    if (pattern.at(q) === c) q++;
    if (q === m) {
      starts.push(i - m + 1);
      if (starts.length > max) return starts;
      // Non-overlapping: the next match starts after this one, as indexOf's loop would.
      q = 0;
    }
    if (pacer.due(text.cost?.(i) ?? 1)) await pacer.pause();
  }
  return starts;
}

/** Whether `pattern` occurs in `text`, in linear time. */
export async function contains(text: string, pattern: string, pacer: Pacer): Promise<boolean> {
  return (await findAll(codeUnits(text), codeUnits(pattern), pacer, 0)).length > 0;
}
