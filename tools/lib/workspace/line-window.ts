/**
 * How many lines a text has and where the lines of one window start, in one paced pass that keeps
 * only the window's starts: what read_file needs. A LineIndex keeps every line's start, 4 bytes a
 * line, so a 10 MiB file of empty lines took a 42 MB index to show 2,000 of them, and the
 * collections that allocation brought on held the isolate past the 250 ms another request may
 * wait (the worst-inputs bench read 284-316 ms late in full runs).
 */
import type { Pacer } from "./pacer.ts";

export interface LineWindow {
  /** Lines in the text, counted as LineIndex counts them: a final newline is followed by one empty line. */
  readonly count: number;
  /** Offset of line `n`'s first character (1-based, within the window; a RangeError outside it). */
  start(n: number): number;
  /** Offset of line `n`'s end, before its `\n` (1-based, within the window). */
  end(n: number): number;
}

/** The window of lines `first` to `last` (1-based, inclusive) of `text`. */
export async function lineWindow(text: string, first: number, last: number, pacer: Pacer): Promise<LineWindow> {
  // starts[i] is where line first + i starts, one line past the window kept for end().
  const starts: number[] = first === 1 ? [0] : [];
  let line = 1;
  let from = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    line++;
    if (line >= first && line <= last + 1) starts.push(at + 1);
    if (pacer.due(at - from + 1)) await pacer.pause();
    from = at;
  }
  const count = line;
  const start = (n: number): number => {
    // Only the window's starts were kept: a line outside it is a caller's bug, not a text's end.
    if (n < first || n > last + 1) throw new RangeError(`line ${n} is outside the window ${first}-${last}`);
    return starts[n - first] ?? text.length;
  };
  return { count, start, end: (n) => (n < count ? start(n + 1) - 1 : text.length) };
}
