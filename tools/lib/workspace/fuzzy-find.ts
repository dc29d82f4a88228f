/**
 * Where `old_string` occurs in a file, with Hermes's fallbacks for the drift models make when
 * they quote code from memory: first the exact text, then line by line ignoring leading and
 * trailing whitespace (indentation drift), then also collapsing runs of spaces and tabs inside
 * lines (whitespace drift), then with literal `\n`/`\t` escapes unescaped. The first strategy
 * that finds anything wins, so a fuzzy match never outvotes an exact one.
 */

export type Strategy = "exact" | "line_trimmed" | "whitespace_normalized" | "escape_normalized";

/** A matched span of the file's text, by character offset (`end` exclusive). */
export interface Span {
  start: number;
  end: number;
}

export interface Found {
  strategy: Strategy;
  spans: Span[];
}

function exactSpans(text: string, pattern: string): Span[] {
  const spans: Span[] = [];
  for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + pattern.length)) {
    spans.push({ start: at, end: at + pattern.length });
  }
  return spans;
}

interface Line {
  text: string;
  start: number;
  /** Offset of the line's end, before its `\n`. */
  end: number;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    lines.push({ text: text.slice(start, end), start, end });
    if (nl === -1) return lines;
    start = nl + 1;
  }
}

const trimmed = (line: string): string => line.trim();
const collapsed = (line: string): string => line.trim().replace(/[ \t]+/g, " ");

/** Windows of whole lines equal to the pattern's lines under `normalize`, non-overlapping. */
function lineSpans(text: string, pattern: string, normalize: (line: string) => string): Span[] {
  const wanted = pattern.split("\n");
  // A pattern ending in a newline matches through the newline of its last line.
  const throughNewline = wanted.length > 1 && wanted[wanted.length - 1] === "";
  if (throughNewline) wanted.pop();
  const want = wanted.map(normalize);
  if (want.every((l) => l === "")) return [];
  const lines = linesOf(text);
  const have = lines.map((l) => normalize(l.text));
  const spans: Span[] = [];
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (!want.every((w, j) => have[i + j] === w)) continue;
    const first = lines[i] as Line;
    const last = lines[i + want.length - 1] as Line;
    const end = throughNewline && last.end < text.length ? last.end + 1 : last.end;
    spans.push({ start: first.start, end });
    i += want.length - 1;
  }
  return spans;
}

/** The spans of `pattern` in `text` by the first strategy that finds any, or undefined. */
export function findSpans(text: string, pattern: string): Found | undefined {
  const exact = exactSpans(text, pattern);
  if (exact.length > 0) return { strategy: "exact", spans: exact };
  const loose = lineSpans(text, pattern, trimmed);
  if (loose.length > 0) return { strategy: "line_trimmed", spans: loose };
  const looser = lineSpans(text, pattern, collapsed);
  if (looser.length > 0) return { strategy: "whitespace_normalized", spans: looser };
  if (/\\[ntr]/.test(pattern)) {
    const unescaped = exactSpans(text, pattern.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\r/g, "\r"));
    if (unescaped.length > 0) return { strategy: "escape_normalized", spans: unescaped };
  }
  return undefined;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? "";
const firstNonBlank = (text: string): string => text.split("\n").find((l) => l.trim() !== "") ?? "";

/**
 * `replacement` re-indented for a fuzzy match: the indentation the model used for its first
 * line is swapped for the file's, so a block quoted at the wrong depth lands at the right one.
 */
export function reindent(replacement: string, pattern: string, matched: string): string {
  const modelIndent = indentOf(firstNonBlank(pattern));
  const fileIndent = indentOf(firstNonBlank(matched));
  if (modelIndent === fileIndent) return replacement;
  return replacement
    .split("\n")
    .map((line) => (line.trim() === "" ? line : line.startsWith(modelIndent) ? fileIndent + line.slice(modelIndent.length) : line))
    .join("\n");
}

/** The 1-based line a character offset falls on. */
export function lineNumberAt(text: string, offset: number): number {
  let n = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * Up to three lines that look like the pattern's first line (the same words, whatever the
 * spacing or case), as `N| text`, for a no-match error to point at.
 */
export function nearLines(text: string, pattern: string): string[] {
  const squash = (s: string) => s.toLowerCase().replace(/\s+/g, "");
  const anchor = squash(firstNonBlank(pattern));
  if (anchor.length < 4) return [];
  const out: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && out.length < 3; i++) {
    const line = lines[i] ?? "";
    const have = squash(line);
    if (have.length >= 4 && (have.includes(anchor) || anchor.includes(have))) out.push(`${i + 1}| ${line.slice(0, 120)}`);
  }
  return out;
}
