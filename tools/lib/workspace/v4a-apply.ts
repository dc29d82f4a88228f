/**
 * A V4A Update's hunks turned into spans of the file's text and their replacements, which
 * replace-spans.ts and span-diff.ts then apply and show as for a one-string patch.
 *
 * Hunks apply in order, as V4A writes them top to bottom (Codex's rule): each is looked for
 * from where the previous one ended, and the first place it fits is taken. That keeps a patch of
 * thousands of hunks linear in the file: every search stops at its match, the next starts
 * there, and only a hunk that fits nowhere reads to the end (and ends the patch). Lines compare
 * with their leading and trailing whitespace ignored (the drift models make when quoting code,
 * as patch's line_trimmed strategy); context lines are kept as the file has them and '+' lines
 * are written as given, in the file's line endings.
 */
import type { LineIndex } from "./line-index.ts";
import { findAll, type Symbols } from "./linear-search.ts";
import type { Pacer } from "./pacer.ts";
import { TextBuilder } from "./text-builder.ts";
import type { Hunk } from "./v4a-parse.ts";

/** The patch's text by line: a line's text without its line ending. */
export type PatchLines = (i: number) => string;

/** Edits of one file, by character offset; parallel arrays, in order. */
export interface HunkSpans {
  starts: number[];
  ends: number[];
  replacements: string[];
}

/** Why a hunk did not apply, with the patch line it starts on. */
export interface HunkMiss {
  line: number;
  message: string;
}

/** Work units one hunk costs besides its characters (lib/workspace/pacer.ts). */
const HUNK_UNITS = 1024;

type Role = "context" | "remove" | "add" | "skip";

/** What a hunk line does: ' ' (or no prefix) keeps, '-' removes, '+' adds; `\ No newline at end of file` is a note. */
function roleOf(raw: string): { role: Role; text: string } {
  const c = raw.charAt(0);
  if (c === " ") return { role: "context", text: raw.slice(1) };
  if (c === "-") return { role: "remove", text: raw.slice(1) };
  if (c === "+") return { role: "add", text: raw.slice(1) };
  if (c === "\\") return { role: "skip", text: "" };
  return { role: "context", text: raw };
}

/** The first line from `from` whose trimmed text starts with the trimmed hint (one pass; an exact line is such a line). */
async function hintLine(index: LineIndex, lines: number, from: number, hint: string, pacer: Pacer): Promise<number | undefined> {
  const wanted = hint.trim();
  for (let i = from; i < lines; i++) {
    const start = index.start(i);
    if (index.text.slice(start, index.end(i)).trim().startsWith(wanted)) return i;
    await pacer.step(index.end(i) - start + 1);
  }
  return undefined;
}

/**
 * The spans the hunks replace in `index.text`, or the first hunk that fits nowhere after the
 * one before it. `patch` gives the patch's lines.
 */
export async function hunkSpans(index: LineIndex, hunks: readonly Hunk[], patch: PatchLines, pacer: Pacer): Promise<HunkSpans | HunkMiss> {
  const { text } = index;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  // The index counts an empty line after a final newline; the file's last real line is before it.
  const lines = text === "" ? 0 : index.count - (text.endsWith("\n") ? 1 : 0);
  const stopOf = (i: number) => (i + 1 < index.count ? index.start(i + 1) : text.length);
  const out: HunkSpans = { starts: [], ends: [], replacements: [] };
  let cursor = 0;
  for (const [n, hunk] of hunks.entries()) {
    // A hunk's fixed cost (its tables, its search's setup, its pieces) is far more than its
    // characters: 20,000 one-line hunks counted by characters alone held the isolate 370 ms.
    await pacer.step(HUNK_UNITS);
    const where = `hunk ${n + 1} (line ${hunk.line} of the patch)`;
    if (hunk.hint !== undefined) {
      const at = await hintLine(index, lines, cursor, hunk.hint, pacer);
      if (at === undefined)
        return {
          line: hunk.line,
          message: `${where}: no line ${cursor === 0 ? "" : `after line ${cursor} `}starts with its '@@ ${hunk.hint.slice(0, 80)}' anchor`,
        };
      cursor = at + 1;
    }
    const table = new Map<string, number>();
    const ids: number[] = [];
    for (let i = hunk.from; i < hunk.to; i++) {
      const { role, text: body } = roleOf(patch(i));
      if (role !== "context" && role !== "remove") continue;
      const key = body.trim();
      let id = table.get(key);
      if (id === undefined) table.set(key, (id = table.size));
      ids.push(id);
      await pacer.step(body.length + 1);
    }
    const built = new TextBuilder(pacer);
    let start: number;
    let end: number;
    if (ids.length === 0) {
      // Additions only: after the anchor's line, or at the end of the file.
      start = hunk.hint === undefined ? text.length : index.start(cursor);
      end = start;
      if (start === text.length && text !== "" && !text.endsWith("\n")) await built.push(eol);
      for (let i = hunk.from; i < hunk.to; i++) {
        const { role, text: body } = roleOf(patch(i));
        if (role === "add") await built.push(body + eol);
      }
    } else {
      const fileLines: Symbols = {
        length: Math.max(0, lines - cursor),
        at: (i) => table.get(text.slice(index.start(cursor + i), index.end(cursor + i)).trim()) ?? -1,
        cost: (i) => index.end(cursor + i) - index.start(cursor + i) + 1,
      };
      const [found] = await findAll(fileLines, { length: ids.length, at: (j) => ids[j] ?? -1 }, pacer, 0);
      if (found === undefined)
        return {
          line: hunk.line,
          message: `${where}: its ${ids.length} context and '-' line(s) are not in the file${cursor === 0 ? "" : ` after line ${cursor}`} (hunks apply in order, each after the one before)`,
        };
      let at = cursor + found;
      start = index.start(at);
      for (let i = hunk.from; i < hunk.to; i++) {
        const { role, text: body } = roleOf(patch(i));
        if (role === "context") await built.push(text.slice(index.start(at), stopOf(at)));
        if (role === "add") await built.push((built.empty || built.endsWith("\n") ? "" : eol) + body + eol);
        if (role === "context" || role === "remove") at++;
      }
      end = stopOf(at - 1);
      cursor = at;
    }
    let replacement = built.text();
    // At the end of a file without a final newline the hunk's last line stays without one.
    if (end === text.length && !text.endsWith("\n") && text !== "" && replacement.endsWith(eol)) replacement = replacement.slice(0, -eol.length);
    out.starts.push(start);
    out.ends.push(end);
    out.replacements.push(replacement);
  }
  return out;
}
