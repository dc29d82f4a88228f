/**
 * patch's unified diff, built from the spans it replaced instead of by diffing the two texts.
 * A general diff (jsdiff's Myers) costs lines times edits: 2,000 changed lines took 1.7 s in
 * workerd, and a replace_all can change a million. Here the changes are known, so each one is
 * the lines its span touched, before and after, and the diff is one pass over them, stopping
 * once it passes `maxChars`.
 */
import type { LineIndex } from "./line-index.ts";
import type { Pacer } from "./pacer.ts";

const CONTEXT = 3;
/** Characters of one diff line shown; a longer one (minified code) is cut and the diff says so. */
const MAX_LINE_CHARS = 1000;
const NO_EOL = "\\ No newline at end of file";

/** One changed run of whole lines: `old` 0-based lines from `first`, replaced by `lines`. */
interface Change {
  first: number;
  old: number;
  lines: string[];
  /** Whether the new lines end in a newline (false only at the end of a file without one). */
  eol: boolean;
}

export interface SpanDiff {
  diff: string;
  /** The diff stopped at maxChars, or cut a long line: it shows the change but is not a patch to apply. */
  truncated: boolean;
}

/**
 * The changes replacing span k (`starts[k]`, `ends[k]`) with `replacements[k]` makes, in order,
 * spans sharing a line merged into one change.
 */
async function* changes(
  index: LineIndex,
  starts: readonly number[],
  ends: readonly number[],
  replacements: readonly string[],
  pacer: Pacer,
): AsyncGenerator<Change> {
  const { text } = index;
  const stopOf = (line: number) => (line + 1 < index.count ? index.start(line + 1) : text.length);
  for (let k = 0; k < starts.length; ) {
    const first = index.lineAt(starts[k] ?? 0);
    const parts = [text.slice(index.start(first), starts[k])];
    let pos = 0;
    let stop = 0;
    const take = () => {
      parts.push(replacements[k] ?? "");
      pos = ends[k] ?? 0;
      stop = Math.max(stop, stopOf(index.lineAt(Math.max(starts[k] ?? 0, pos - 1))));
      k++;
    };
    take();
    for (;;) {
      while (k < starts.length && (starts[k] ?? 0) < stop) {
        parts.push(text.slice(pos, starts[k]));
        take();
        // Many spans on one line (a replace_all in a minified file) are one change: pace its parts.
        await pacer.step((replacements[k - 1]?.length ?? 0) + 16);
      }
      // A replacement that dropped the newline its span ended with joins the next line to it.
      const tail = text.slice(pos, stop);
      const endsLine = tail === "" ? parts.some((p) => p !== "") && (parts.findLast((p) => p !== "") ?? "").endsWith("\n") : tail.endsWith("\n");
      if (endsLine || stop >= text.length) break;
      stop = stopOf(index.lineAt(stop));
    }
    parts.push(text.slice(pos, stop));
    await pacer.step(stop - index.start(first));
    const after = parts.join("");
    const eol = after.endsWith("\n");
    const lines = after === "" ? [] : (eol ? after.slice(0, -1) : after).split("\n");
    yield { first, old: index.lineAt(stop - 1) - first + 1, lines, eol };
  }
}

/** Old line `i` of the file. */
const oldLine = (index: LineIndex, i: number): string => index.text.slice(index.start(i), index.end(i));

/** `change` without the lines it leaves as they were at its start and end (a fuzzy match's unchanged edges). */
function trimmed(index: LineIndex, change: Change, oldEol: boolean): Change {
  let { first, old, lines } = change;
  const lastOld = oldEol ? index.count - 2 : index.count - 1;
  let head = 0;
  // A last line without a newline that gains one is a change even when its text is equal.
  while (head < old && head < lines.length && (first + head !== lastOld || oldEol) && oldLine(index, first + head) === lines[head]) head++;
  first += head;
  old -= head;
  lines = lines.slice(head);
  // At the end of the file the last lines differ by their newline even when their text is equal.
  const lastIsEof = first + old >= index.count - (oldEol ? 1 : 0);
  if (!lastIsEof || change.eol === oldEol) {
    let tail = 0;
    while (tail < old && tail < lines.length && oldLine(index, first + old - 1 - tail) === lines[lines.length - 1 - tail]) tail++;
    old -= tail;
    lines = lines.slice(0, lines.length - tail);
  }
  return { first, old, lines, eol: change.eol };
}

/**
 * The unified diff (`--- a/path`, `+++ b/path`, hunks with three lines of context) of replacing
 * each span with its replacement, at most about `maxChars` long.
 */
export async function spanDiff(
  path: string,
  index: LineIndex,
  starts: readonly number[],
  ends: readonly number[],
  replacements: readonly string[],
  maxChars: number,
  pacer: Pacer,
): Promise<SpanDiff> {
  const { text } = index;
  const oldEol = text.endsWith("\n");
  // The index counts an empty line after a final newline; the file's last real line is before it.
  const lastOld = oldEol ? index.count - 2 : index.count - 1;
  const out: string[] = [`--- a/${path}`, `+++ b/${path}`];
  let chars = 0;
  let truncated = false;
  let hunk: string[] = [];
  const emit = (prefix: string, line: string, eolAfter = true) => {
    if (line.length > MAX_LINE_CHARS) truncated = true;
    const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}... [${line.length - MAX_LINE_CHARS} more characters]` : line;
    hunk.push(prefix + shown);
    if (!eolAfter) hunk.push(NO_EOL);
    chars += shown.length + 2;
  };
  let delta = 0;
  let hunkOld = 0;
  let hunkNew = 0;
  let hunkStart = 0;
  let hunkDelta = 0;
  let shownTo = -1;
  const context = (to: number) => {
    for (let i = shownTo + 1; i <= to; i++) {
      emit(" ", oldLine(index, i), i !== lastOld || oldEol);
      hunkOld++;
      hunkNew++;
    }
    shownTo = Math.max(shownTo, to);
  };
  const closeHunk = () => {
    context(Math.min(lastOld, shownTo + CONTEXT));
    const oldStart = hunkOld === 0 ? hunkStart : hunkStart + 1;
    const newStart = hunkNew === 0 ? hunkStart + hunkDelta : hunkStart + hunkDelta + 1;
    out.push(`@@ -${oldStart},${hunkOld} +${newStart},${hunkNew} @@`, hunk.join("\n"));
    hunk = [];
  };
  let open = false;
  for await (const whole of changes(index, starts, ends, replacements, pacer)) {
    const change = trimmed(index, whole, oldEol);
    await pacer.step(whole.old + whole.lines.length + 1);
    if (change.old === 0 && change.lines.length === 0) continue;
    if (open && change.first - shownTo > 2 * CONTEXT + 1) {
      closeHunk();
      open = false;
      if (chars > maxChars) return { diff: `${out.join("\n")}\n`, truncated: true };
    }
    if (!open) {
      hunkStart = Math.max(0, change.first - CONTEXT);
      hunkDelta = delta;
      hunkOld = 0;
      hunkNew = 0;
      shownTo = hunkStart - 1;
      open = true;
    }
    context(change.first - 1);
    const last = change.first + change.old - 1;
    for (let i = change.first; i <= last; i++) emit("-", oldLine(index, i), i !== lastOld || oldEol);
    change.lines.forEach((line, j) => emit("+", line, j !== change.lines.length - 1 || change.eol));
    hunkOld += change.old;
    hunkNew += change.lines.length;
    delta += change.lines.length - change.old;
    shownTo = Math.max(shownTo, last);
    if (chars > maxChars) {
      truncated = true;
      break;
    }
  }
  if (open) closeHunk();
  return { diff: `${out.join("\n")}\n`, truncated };
}
