/**
 * The V4A patch format of Hermes's and Codex's `patch` (apply_patch): one text that adds,
 * updates, deletes and moves files.
 *
 * @example
 * *** Begin Patch
 * *** Add File: docs/new.md
 * +# New
 * *** Update File: src/app.ts
 * *** Move to: src/main.ts
 * @@ function start() {
 * -  const retries = 3;
 * +  const retries = 5;
 * *** Delete File: old.txt
 * *** Move File: a.txt -> b.txt
 * *** End Patch
 *
 * Both Codex's `*** Move to:` (after an Update header) and Hermes's `*** Move File: a -> b` are
 * read. The parse is one paced pass over a line index of the patch, and an operation keeps line
 * numbers into that index instead of copies of its lines: a 10 MiB patch of one-character lines
 * is five million lines, which as strings or objects would not fit in a Worker's memory.
 */
import { ToolFailureError } from "../../../src/errors/tool-failure.ts";
import type { LineIndex } from "./line-index.ts";
import type { Pacer } from "./pacer.ts";
import { normalizePath } from "./workspace-path.ts";

/** Files one patch may name, counting both sides of a move: each is read and written whole. */
export const MAX_PATCH_FILES = 100;

/** A run of the patch's lines, 0-based, `to` exclusive. */
export interface LineRange {
  from: number;
  to: number;
}

/** One `@@` hunk of an Update: its lines (' ', '-', '+' or unprefixed context), and the anchor line after `@@`. */
export interface Hunk extends LineRange {
  /** 1-based line of the patch where the hunk starts, for errors. */
  line: number;
  hint: string | undefined;
}

export type PatchOp =
  | { kind: "add"; line: number; path: string; body: LineRange }
  | { kind: "delete"; line: number; path: string }
  | { kind: "update"; line: number; path: string; moveTo: string | undefined; hunks: Hunk[] }
  | { kind: "move"; line: number; path: string; moveTo: string };

/** A syntax error at 1-based `line` of the patch, as INVALID_ARGUMENTS naming the `patch` field. */
export function patchSyntaxError(line: number, message: string, text?: string): ToolFailureError {
  return new ToolFailureError({
    kind: "invalid_arguments",
    name: "patch",
    issues: [{ path: "patch", message: `line ${line}: ${message}`, ...(text === undefined ? {} : { received: JSON.stringify(text.slice(0, 120)) }) }],
    example: "*** Begin Patch\n*** Update File: src/app.ts\n@@ function start() {\n-  const retries = 3;\n+  const retries = 5;\n*** End Patch",
  });
}

/** A header path made workspace-relative, or a refusal naming the patch line it is on. */
function headerPath(raw: string, line: number): string {
  if (raw.trim() === "") throw patchSyntaxError(line, "the header names no path");
  try {
    return normalizePath(raw.trim(), "patch", "patch");
  } catch (error) {
    if (!(error instanceof ToolFailureError) || error.failure.kind !== "invalid_arguments") throw error;
    throw patchSyntaxError(line, error.failure.issues[0]?.message ?? "the path is not allowed", raw);
  }
}

const HEADER = /^\*\*\*\s*(Add File|Update File|Delete File|Move File|Move to|End of File|Begin Patch|End Patch):?\s*(.*)$/;
/** A unified diff's range header (`@@ -1,3 +1,4 @@`) that a model wrote where an anchor goes: no anchor. */
const RANGE_HINT = /^-\d+(,\d+)? \+\d+(,\d+)?$/;

/** The patch's line `i` without its line ending; a trailing CR is dropped too (a patch written on Windows). */
export function patchLines(index: LineIndex): (i: number) => string {
  const { text } = index;
  return (i) => {
    const start = index.start(i);
    const end = index.end(i);
    return text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
  };
}

/**
 * The operations of a V4A patch, in order. Throws INVALID_ARGUMENTS naming the first line that
 * is not V4A, a header path that leaves the workspace, or an Update without hunks.
 */
export async function parseV4a(index: LineIndex, pacer: Pacer): Promise<PatchOp[]> {
  const lineText = patchLines(index);
  let last = index.count;
  while (last > 0 && lineText(last - 1).trim() === "") last--;
  let first = 0;
  while (first < last && lineText(first).trim() === "") first++;
  if (first < last && lineText(first).trim() === "*** Begin Patch") first++;
  for (let i = first; i < last; i++) {
    if (lineText(i).trim() === "*** End Patch") {
      last = i;
      break;
    }
    await pacer.step(index.end(i) - index.start(i) + 1);
  }
  const ops: PatchOp[] = [];
  const paths = new Set<string>();
  const named = (path: string, line: number): string => {
    paths.add(path);
    if (paths.size > MAX_PATCH_FILES) throw patchSyntaxError(line, `the patch names more than ${MAX_PATCH_FILES} files; split it into several patches`);
    return path;
  };
  /** End of the section starting at line `i` (exclusive), its trailing blank lines left out. */
  const sectionEnd = async (i: number): Promise<{ end: number; next: number }> => {
    let j = i;
    while (j < last && !lineText(j).startsWith("***")) {
      await pacer.step(index.end(j) - index.start(j) + 1);
      j++;
    }
    let end = j;
    while (end > i && lineText(end - 1).trim() === "") end--;
    return { end, next: j };
  };

  for (let i = first; i < last; ) {
    const raw = lineText(i);
    const line = i + 1;
    if (raw.trim() === "") {
      i++;
      continue;
    }
    const header = HEADER.exec(raw.trim());
    if (header === null)
      throw patchSyntaxError(
        line,
        "expected a file header: '*** Add File: <path>', '*** Update File: <path>', '*** Delete File: <path>' or '*** Move File: <from> -> <to>'",
        raw,
      );
    const [, kind, rest = ""] = header;
    if (kind === "Add File") {
      const path = named(headerPath(rest, line), line);
      const { end, next } = await sectionEnd(i + 1);
      for (let j = i + 1; j < end; j++) {
        if (!lineText(j).startsWith("+")) throw patchSyntaxError(j + 1, `every line of an Add File section starts with '+' (the new file's line)`, lineText(j));
      }
      ops.push({ kind: "add", line, path, body: { from: i + 1, to: end } });
      i = next;
    } else if (kind === "Delete File") {
      const path = named(headerPath(rest, line), line);
      const { end, next } = await sectionEnd(i + 1);
      if (end > i + 1) throw patchSyntaxError(i + 2, "a Delete File header is followed by the next header, not by lines", lineText(i + 1));
      ops.push({ kind: "delete", line, path });
      i = next;
    } else if (kind === "Move File") {
      const arrow = rest.lastIndexOf("->");
      if (arrow === -1) throw patchSyntaxError(line, "a Move File header reads '*** Move File: <from> -> <to>'", raw);
      const path = named(headerPath(rest.slice(0, arrow), line), line);
      const moveTo = named(headerPath(rest.slice(arrow + 2), line), line);
      const { end, next } = await sectionEnd(i + 1);
      if (end > i + 1)
        throw patchSyntaxError(
          i + 2,
          "a Move File header moves the file as it is; to change it too, use '*** Update File:' with '*** Move to:'",
          lineText(i + 1),
        );
      ops.push({ kind: "move", line, path, moveTo });
      i = next;
    } else if (kind === "Update File") {
      const path = named(headerPath(rest, line), line);
      let j = i + 1;
      let moveTo: string | undefined;
      const move = j < last ? HEADER.exec(lineText(j).trim()) : null;
      if (move?.[1] === "Move to") {
        moveTo = named(headerPath(move[2] ?? "", j + 1), j + 1);
        j++;
      }
      const { end, next } = await sectionEnd(j);
      const hunks = await hunksOf(j, end, lineText, pacer);
      if (hunks.length === 0)
        throw patchSyntaxError(line, `Update File '${path}' has no hunk: add '@@' lines with ' ' context, '-' removed and '+' added lines`);
      ops.push({ kind: "update", line, path, moveTo, hunks });
      i = next;
    } else if (kind === "End of File") {
      i++;
    } else {
      throw patchSyntaxError(line, `'*** ${kind}' is not allowed here; it belongs right after an Update File header or at the patch's start or end`, raw);
    }
  }
  if (ops.length === 0) throw patchSyntaxError(first + 1, "the patch holds no file operation");
  return ops;
}

/** The hunks of an Update section's lines `[from, to)`: each starts at an `@@` line or at the first content line. */
async function hunksOf(from: number, to: number, lineText: (i: number) => string, pacer: Pacer): Promise<Hunk[]> {
  const hunks: Hunk[] = [];
  let open: Hunk | undefined;
  for (let i = from; i < to; i++) {
    const raw = lineText(i);
    await pacer.step(raw.length + 1);
    if (raw.startsWith("@@")) {
      if (open !== undefined) hunks.push(open);
      const hint = raw
        .slice(2)
        .replace(/@@\s*$/, "")
        .trim();
      open = { line: i + 1, hint: hint === "" || RANGE_HINT.test(hint) ? undefined : hint, from: i + 1, to: i + 1 };
      continue;
    }
    open ??= { line: i + 1, hint: undefined, from: i, to: i };
    open.to = i + 1;
  }
  if (open !== undefined) hunks.push(open);
  // An anchor with no lines under it changes nothing.
  return hunks.filter((hunk) => hunk.to > hunk.from);
}
