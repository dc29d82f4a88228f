/**
 * Where each line of a text starts, built once per call in one paced pass, so that matching by
 * lines, line numbers of matches and the diff never re-scan the text from its start (a scan per
 * match is quadratic). Starts are kept in a typed array: a 10 MiB file of empty lines has 10
 * million of them, which as objects or substrings would not fit in a Worker's memory.
 */
import type { Pacer } from "./pacer.ts";

export class LineIndex {
  readonly text: string;
  readonly #starts: Int32Array;

  private constructor(text: string, starts: Int32Array) {
    this.text = text;
    this.#starts = starts;
  }

  /** The index of `text` (lines split at `\n`; a final newline is followed by one empty line). */
  static async build(text: string, pacer: Pacer): Promise<LineIndex> {
    let count = 1;
    let from = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      count++;
      if (pacer.due(at - from + 1)) await pacer.pause();
      from = at;
    }
    const starts = new Int32Array(count);
    let n = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      starts[n++] = at + 1;
      if (pacer.due(1)) await pacer.pause();
    }
    return new LineIndex(text, starts);
  }

  get count(): number {
    return this.#starts.length;
  }

  /** Offset of line `i`'s first character (0-based line). */
  start(i: number): number {
    return this.#starts[i] ?? this.text.length;
  }

  /** Offset of line `i`'s end, before its `\n`. */
  end(i: number): number {
    return i + 1 < this.#starts.length ? (this.#starts[i + 1] ?? 0) - 1 : this.text.length;
  }

  /** The 0-based line `offset` falls on, by binary search. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.#starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
