/**
 * Where `old_string` occurs in a file, with Hermes's fallbacks for the drift models make when
 * they quote code from memory: first the exact text, then line by line ignoring leading and
 * trailing whitespace (indentation drift), then also collapsing runs of spaces and tabs inside
 * lines (whitespace drift), then with literal `\n`/`\t` escapes unescaped. The first strategy
 * that finds anything wins, so a fuzzy match never outvotes an exact one.
 *
 * Every strategy is one paced pass over the file (lib/workspace/pacer.ts): a 1 MiB old_string
 * against a 10 MiB file costs what the file costs, and no pass holds the isolate.
 */

import type { LineIndex } from "./line-index.ts";
import { codeUnits, findAll, type Symbols } from "./linear-search.ts";
import type { Pacer } from "./pacer.ts";

export type Strategy = "exact" | "line_trimmed" | "whitespace_normalized" | "escape_normalized";

/** Matched spans of the file's text, by character offset (`ends` exclusive), in order; parallel arrays, as there may be a million. */
export interface Found {
  strategy: Strategy;
  starts: number[];
  ends: number[];
}

/** What a search is given: the file, its line index (built on first need), the pacer, and how many matches to find at most (one more is found, to tell "too many"). */
export interface SearchInput {
  text: string;
  lines: () => Promise<LineIndex>;
  pacer: Pacer;
  max: number;
}

/** Starts and ends of matches, as parallel arrays. */
type Spans = [starts: number[], ends: number[]];

async function exactSpans(input: SearchInput, pattern: string): Promise<Spans> {
  const starts = await findAll(codeUnits(input.text), codeUnits(pattern), input.pacer, input.max);
  return [starts, starts.map((s) => s + pattern.length)];
}

const trimmed = (line: string): string => line.trim();
const collapsed = (line: string): string => line.trim().replace(/[ \t]+/g, " ");

/** The pattern's lines under `normalize` as ids, and the table giving each distinct line its id. */
async function patternLines(pattern: string, normalize: (line: string) => string, pacer: Pacer): Promise<{ ids: Int32Array; table: Map<string, number> }> {
  const lines: string[] = [];
  for (let from = 0; ; ) {
    const nl = pattern.indexOf("\n", from);
    lines.push(pattern.slice(from, nl === -1 ? pattern.length : nl));
    await pacer.step((nl === -1 ? pattern.length : nl) - from + 1);
    if (nl === -1) break;
    from = nl + 1;
  }
  const table = new Map<string, number>();
  const ids = new Int32Array(lines.length);
  for (const [i, line] of lines.entries()) {
    const key = normalize(line);
    let id = table.get(key);
    if (id === undefined) table.set(key, (id = table.size));
    ids[i] = id;
    await pacer.step(line.length + 1);
  }
  return { ids, table };
}

/**
 * Windows of whole lines equal to the pattern's lines under `normalize`, non-overlapping. Each
 * file line is normalised once and looked up among the pattern's distinct lines (a line the
 * pattern lacks can match nothing), and the windows are found by KMP over those ids: comparing
 * each window afresh would cost file lines times pattern lines.
 */
async function lineSpans(input: SearchInput, pattern: string, normalize: (line: string) => string): Promise<Spans> {
  const { pacer } = input;
  // A pattern ending in a newline matches through the newline of its last line.
  const throughNewline = pattern.endsWith("\n");
  const { ids, table } = await patternLines(throughNewline ? pattern.slice(0, -1) : pattern, normalize, pacer);
  if (table.size === 1 && table.has("")) return [[], []];
  const index = await input.lines();
  const text = index.text;
  const fileLines: Symbols = {
    length: index.count,
    at: (i) => table.get(normalize(text.slice(index.start(i), index.end(i)))) ?? -1,
    cost: (i) => index.end(i) - index.start(i) + 1,
  };
  const first = await findAll(fileLines, { length: ids.length, at: (j) => ids[j] ?? -1 }, pacer, input.max);
  const starts = first.map((i) => index.start(i));
  const ends = first.map((i) => {
    const end = index.end(i + ids.length - 1);
    return throughNewline && end < text.length ? end + 1 : end;
  });
  return [starts, ends];
}

/** The spans of `pattern` in the text by the first strategy that finds any, or undefined. */
export async function findSpans(input: SearchInput, pattern: string): Promise<Found | undefined> {
  const found = (strategy: Strategy, [starts, ends]: Spans): Found | undefined => (starts.length > 0 ? { strategy, starts, ends } : undefined);
  const exact = found("exact", await exactSpans(input, pattern));
  if (exact !== undefined) return exact;
  const loose = found("line_trimmed", await lineSpans(input, pattern, trimmed));
  if (loose !== undefined) return loose;
  const looser = found("whitespace_normalized", await lineSpans(input, pattern, collapsed));
  if (looser !== undefined) return looser;
  if (/\\[ntr]/.test(pattern))
    return found("escape_normalized", await exactSpans(input, pattern.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\r/g, "\r")));
  return undefined;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? "";

/** The first non-blank line of `text[start, end)`, reading no further than that line; "" when all are blank. */
function firstNonBlank(text: string, start: number, end: number): string {
  for (let from = start; from < end; ) {
    const nl = text.indexOf("\n", from);
    const stop = nl === -1 || nl > end ? end : nl;
    const line = text.slice(from, stop);
    if (line.trim() !== "") return line;
    from = stop + 1;
  }
  return "";
}

const firstIndent = (text: string, start: number, end: number): string => indentOf(firstNonBlank(text, start, end));

/**
 * The replacement for each fuzzy match: the indentation the model used for its first line is
 * swapped for the file's, so a block quoted at the wrong depth lands at the right one; `finish`
 * then applies to it (the file's line endings). Built once per distinct file indentation (a
 * file has few), never once per match, so a million matches share a handful of strings.
 */
export function reindenter(
  replacement: string,
  pattern: string,
  text: string,
  finish: (replacement: string) => string,
): (start: number, end: number) => string {
  const modelIndent = firstIndent(pattern, 0, pattern.length);
  const byIndent = new Map<string, string>();
  return (start, end) => {
    const fileIndent = firstIndent(text, start, end);
    let out = byIndent.get(fileIndent);
    if (out === undefined) {
      const moved =
        fileIndent === modelIndent
          ? replacement
          : replacement
              .split("\n")
              .map((line) => (line.trim() === "" ? line : line.startsWith(modelIndent) ? fileIndent + line.slice(modelIndent.length) : line))
              .join("\n");
      out = finish(moved);
      byIndent.set(fileIndent, out);
    }
    return out;
  };
}

/** Characters of the pattern's first line a near-miss hint compares, and of each file line. */
const ANCHOR_CHARS = 120;
const LINE_CHARS = 1000;

/**
 * Up to three lines that look like the pattern's first line (the same words, whatever the
 * spacing or case), as `N| text`, for a no-match error to point at. Both sides are cut
 * (ANCHOR_CHARS, LINE_CHARS): it is a hint, and `includes` on long chosen strings is not linear.
 */
export async function nearLines(index: LineIndex, pattern: string, pacer: Pacer): Promise<string[]> {
  const squash = (s: string) => s.toLowerCase().replace(/\s+/g, "");
  const anchor = squash(firstNonBlank(pattern, 0, pattern.length)).slice(0, ANCHOR_CHARS);
  if (anchor.length < 4) return [];
  const out: string[] = [];
  const { text } = index;
  for (let i = 0; i < index.count && out.length < 3; i++) {
    const start = index.start(i);
    const line = text.slice(start, Math.min(index.end(i), start + LINE_CHARS));
    const have = squash(line);
    if (have.length >= 4 && (have.includes(anchor) || anchor.includes(have))) out.push(`${i + 1}| ${line.slice(0, 120)}`);
    await pacer.step(line.length + 1);
  }
  return out;
}
