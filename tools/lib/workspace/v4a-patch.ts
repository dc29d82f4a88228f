/**
 * patch's multi-file mode: a V4A patch (v4a-parse.ts) applied all or nothing. Every operation
 * runs against an in-memory overlay of the files it names (read once each, then changed there),
 * so a later operation sees the earlier ones, and a failure anywhere returns before one byte is
 * written. Only then does commit-files.ts write the result.
 */
import { toolError } from "../../../src/registry/tool-result.ts";
import type { ToolContext } from "../../../src/registry/types.ts";
import { commitFiles, type StagedFile } from "./commit-files.ts";
import { nearLines } from "./fuzzy-find.ts";
import { LineIndex } from "./line-index.ts";
import { type Pacer, pacerOf } from "./pacer.ts";
import { replacedSize, replaceSpans, utf8Length } from "./replace-spans.ts";
import { spanDiff } from "./span-diff.ts";
import { TextBuilder } from "./text-builder.ts";
import { decodeFile } from "./text-file.ts";
import { hunkSpans } from "./v4a-apply.ts";
import { type PatchOp, parseV4a, patchLines } from "./v4a-parse.ts";
import { checkFileSize, formatBytes, MAX_FILE_BYTES, readStoredFile, type StoredFile, type Workspace } from "./workspace.ts";

/** Bytes of files one patch reads and writes in all: each is held in memory until the commit. */
export const MAX_PATCH_TOTAL_BYTES = 2 * MAX_FILE_BYTES;

/** A file's text and its UTF-8 size. */
interface Body {
  text: string;
  bytes: number;
}

/** One file as the patch has it: as read (undefined: absent), now (undefined: absent), and whether the patch set it. */
interface Entry {
  before: StoredFile | undefined;
  now: Body | undefined;
  changed: boolean;
}

/** A failure of one operation, before anything is written. */
class OpFailed extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();

/** The files a patch names, read once each from the store and then changed in memory only. */
class Overlay {
  readonly #ws: Workspace;
  readonly #files = new Map<string, Entry>();
  #bytes = 0;

  constructor(ws: Workspace) {
    this.#ws = ws;
  }

  /** The file as the patch has it now, read from the store on first use. */
  async get(path: string, line: number): Promise<Body | undefined> {
    let entry = this.#files.get(path);
    if (entry === undefined) {
      const before = await readStoredFile(this.#ws, path, "patch");
      this.#count(before?.size ?? 0, path, line);
      let now: Body | undefined;
      if (before !== undefined) {
        const decoded = decodeFile(before.bytes);
        if (decoded.binary)
          throw new OpFailed(path, line, `${path} is a binary file (${decoded.kind}, ${formatBytes(before.size)}); patch edits text files only`);
        // The decoder dropped a UTF-8 byte order mark, which is not written back either.
        const bom = before.bytes[0] === 0xef && before.bytes[1] === 0xbb && before.bytes[2] === 0xbf ? 3 : 0;
        now = { text: decoded.text, bytes: before.size - bom };
      }
      entry = { before, now, changed: false };
      this.#files.set(path, entry);
    }
    return entry.now;
  }

  /** Sets a file read before (undefined deletes it). */
  set(path: string, now: Body | undefined, line: number): void {
    const entry = this.#files.get(path);
    if (entry === undefined) throw new Error(`${path} was set before it was read`);
    if (now !== undefined) checkFileSize(now.bytes, path, "patch", "patch");
    this.#count(now?.bytes ?? 0, path, line);
    entry.now = now;
    entry.changed = true;
  }

  #count(bytes: number, path: string, line: number): void {
    this.#bytes += bytes;
    if (this.#bytes > MAX_PATCH_TOTAL_BYTES)
      throw new OpFailed(
        path,
        line,
        `the patch reads and writes more than ${formatBytes(MAX_PATCH_TOTAL_BYTES)} of files in all; split it into smaller patches`,
      );
  }

  /** Every file the patch changed, with its new bytes (undefined: to delete), in the order first named. */
  staged(): StagedFile[] {
    const out: StagedFile[] = [];
    for (const [path, { before, now, changed }] of this.#files) {
      if (!changed || (now === undefined && before === undefined)) continue;
      out.push({ path, before, after: now === undefined ? undefined : encoder.encode(now.text) });
    }
    return out;
  }
}

/** A whole file as a diff (`--- /dev/null` for an added one, `+++ /dev/null` for a deleted one), at most `budget` characters. */
async function wholeDiff(path: string, text: string, added: boolean, budget: number, pacer: Pacer): Promise<{ diff: string; cut: boolean }> {
  const index = await LineIndex.build(text, pacer);
  const lines = text === "" ? 0 : index.count - (text.endsWith("\n") ? 1 : 0);
  const head = added ? `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines} @@` : `--- a/${path}\n+++ /dev/null\n@@ -1,${lines} +0,0 @@`;
  const out = new TextBuilder(pacer);
  await out.push(head);
  let chars = head.length;
  for (let i = 0; i < lines; i++) {
    const line = text.slice(index.start(i), Math.min(index.end(i), index.start(i) + 1000));
    if (chars + line.length + 2 > budget) return { diff: `${out.text()}\n`, cut: true };
    await out.push(`\n${added ? "+" : "-"}${line}`);
    chars += line.length + 2;
  }
  return { diff: `${out.text()}\n`, cut: false };
}

interface Report {
  modified: string[];
  created: string[];
  deleted: string[];
  moved: string[];
  diffs: string[];
  chars: number;
  cut: boolean;
}

/** Applies one operation to the overlay and records its diff. */
async function applyOp(op: PatchOp, files: Overlay, patchLine: (i: number) => string, report: Report, maxDiff: number, pacer: Pacer): Promise<void> {
  const { path, line } = op;
  const current = await files.get(path, line);
  const budget = Math.max(0, maxDiff - report.chars);
  const note = (diff: string, cut: boolean) => {
    report.diffs.push(diff);
    report.chars += diff.length;
    report.cut ||= cut;
  };
  if (op.kind === "add") {
    if (current !== undefined) throw new OpFailed(path, line, `Add File '${path}': the file exists; use '*** Update File:' to change it`);
    const body = new TextBuilder(pacer);
    let bytes = 0;
    for (let i = op.body.from; i < op.body.to; i++) {
      const added = `${patchLine(i).slice(1)}\n`;
      bytes += utf8Length(added);
      await body.push(added);
    }
    const text = body.text();
    files.set(path, { text, bytes }, line);
    report.created.push(path);
    const shown = await wholeDiff(path, text, true, budget, pacer);
    return note(shown.diff, shown.cut);
  }
  const verb = { delete: "Delete", move: "Move", update: "Update" }[op.kind];
  if (current === undefined) throw new OpFailed(path, line, `${verb} File '${path}': no such file`);
  if (op.kind === "delete") {
    files.set(path, undefined, line);
    report.deleted.push(path);
    const shown = await wholeDiff(path, current.text, false, budget, pacer);
    return note(shown.diff, shown.cut);
  }
  let after = current;
  if (op.kind === "update") {
    const index = await LineIndex.build(current.text, pacer);
    const spans = await hunkSpans(index, op.hunks, patchLine, pacer);
    if ("message" in spans) {
      const near = await nearLines(index, hunkText(op, spans.line, patchLine), pacer);
      const hint = near.length === 0 ? " Read the file again (read_file) and copy its lines exactly." : ` Did you mean one of these lines?\n${near.join("\n")}`;
      throw new OpFailed(path, spans.line, `Update File '${path}', ${spans.message}.${hint}`);
    }
    const bytes = await replacedSize(current.bytes, current.text, spans.starts, spans.ends, spans.replacements, pacer);
    checkFileSize(bytes, op.moveTo ?? path, "patch", "patch");
    after = { text: await replaceSpans(current.text, spans.starts, spans.ends, spans.replacements, pacer), bytes };
    files.set(path, after, line);
    const shown = await spanDiff(path, index, spans.starts, spans.ends, spans.replacements, budget, pacer);
    note(shown.diff, shown.truncated);
  }
  const moveTo = op.moveTo ?? path;
  if (moveTo === path) return void report.modified.push(path);
  if ((await files.get(moveTo, line)) !== undefined)
    throw new OpFailed(moveTo, line, `${verb} File '${path}': cannot move it to '${moveTo}', which exists already`);
  files.set(moveTo, after, line);
  files.set(path, undefined, line);
  report.moved.push(`${path} -> ${moveTo}`);
  note(`# Moved: ${path} -> ${moveTo}\n`, false);
}

/** The first context or removed line of the hunk starting at patch line `line`, for the near-line hint. */
function hunkText(op: PatchOp & { kind: "update" }, line: number, patchLine: (i: number) => string): string {
  const hunk = op.hunks.find((h) => h.line === line);
  for (let i = hunk?.from ?? 0; i < (hunk?.to ?? 0); i++) {
    const raw = patchLine(i);
    if (!raw.startsWith("+") && !raw.startsWith("\\") && raw.trim() !== "") return raw.replace(/^[-\s]/, "");
  }
  return hunk?.hint ?? "";
}

/**
 * Applies a V4A patch to the caller's workspace, all or nothing: the result (files changed,
 * created, deleted, moved, and a diff of at most `maxDiff` characters), or a tool error saying
 * which operation failed and that no file was modified.
 */
export async function applyV4aPatch(ws: Workspace, patch: string, ctx: ToolContext, maxDiff: number): Promise<Record<string, unknown> | string> {
  const pacer = pacerOf(ctx);
  const index = await LineIndex.build(patch, pacer);
  const patchLine = patchLines(index);
  const ops = await parseV4a(index, pacer);
  const files = new Overlay(ws);
  const report: Report = { modified: [], created: [], deleted: [], moved: [], diffs: [], chars: 0, cut: false };
  try {
    for (const op of ops) await applyOp(op, files, patchLine, report, maxDiff, pacer);
  } catch (error) {
    if (!(error instanceof OpFailed)) throw error;
    return toolError(`Patch validation failed (no files were modified): ${error.message}`, { path: error.path, patch_line: error.line });
  }
  const committed = await commitFiles(ws, files.staged());
  if (!committed.ok) {
    const state = committed.restored ? "no files were modified" : "some files may hold the new text: read them before resending";
    return toolError(`Patch not written (${state}): ${committed.reason}. Read the files again and resend the patch.`, { path: committed.path });
  }
  return {
    success: true,
    files_modified: report.modified,
    files_created: report.created,
    files_deleted: report.deleted,
    ...(report.moved.length > 0 ? { files_moved: report.moved } : {}),
    diff: report.diffs.join(""),
    ...(report.cut ? { diff_truncated: true, hint: "The diff is cut short (a long change or long lines); read_file shows the files as they are now." } : {}),
  };
}
