/**
 * read_file: a window of a workspace file's lines, numbered as `<n>|<text>` (Hermes's format),
 * so the model can cite and patch by line. It says how many lines there are and where to read
 * on; a binary file is reported with its size and never dumped.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { lineWindow } from "./lib/workspace/line-window.ts";
import { pacerOf } from "./lib/workspace/pacer.ts";
import { formatBytes, MAX_FILE_BYTES, openWorkspace, readTextFile, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { fileResource, MAX_PATH_BYTES, normalizePath } from "./lib/workspace/workspace-path.ts";

const MAX_LIMIT = 2000;
/** Longer lines are cut: one minified line must not fill the window. */
const MAX_LINE_CHARS = 2000;
/** The window stops before its numbered text passes this, and says where to go on. */
const MAX_WINDOW_CHARS = 100_000;

registry.register({
  name: "read_file",
  toolset: "files",
  readOnly: true,
  emoji: "📖",
  // The window bounds itself (MAX_WINDOW_CHARS), so a read never becomes a stored result to page.
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  check: workspaceAvailable,
  reads: fileResource,
  schema: () =>
    z.object({
      path: z
        .string()
        .min(1)
        .max(MAX_PATH_BYTES)
        .describe(`Workspace-relative file path, '/'-separated, at most ${MAX_PATH_BYTES} bytes; no leading '/', no '..'. Example: 'src/app.ts'.`),
      offset: z.number().int().min(1).default(1).describe("First line to return, 1-based (1 = the first line). Default 1."),
      limit: z.number().int().min(1).max(MAX_LIMIT).default(500).describe(`How many lines to return, 1-${MAX_LIMIT}. Default 500.`),
    }),
  description:
    `Reads a text file from your workspace as numbered lines 'LINE_NUM|CONTENT' (for example '12|const x = 1;'), a window of 'limit' lines from 'offset'. ` +
    `The result gives total_lines and file_size (bytes) and, when more remains, a hint with the offset to read next. ` +
    `Lines over ${MAX_LINE_CHARS} characters are cut; a window stops at about ${MAX_WINDOW_CHARS} characters. Binary files are reported as binary with their size, not shown. Files over ${formatBytes(MAX_FILE_BYTES)} cannot be read.`,
  example: { path: "notes/todo.md", offset: 1, limit: 100 },
  worstInputs: [
    {
      name: "the last window of a 10 MiB file of 10 million empty lines",
      setup: () => [{ tool: "write_file", args: { path: "worst/read-lines.txt", content: "\n".repeat(10 * 1024 * 1024) } }],
      args: () => ({ path: "worst/read-lines.txt", offset: 10 * 1024 * 1024 - 1999, limit: MAX_LIMIT }),
    },
    {
      name: "a full window over a 10 MiB file that is one line",
      setup: () => [{ tool: "write_file", args: { path: "worst/read-one-line.txt", content: "x".repeat(10 * 1024 * 1024) } }],
      args: () => ({ path: "worst/read-one-line.txt", offset: 1, limit: MAX_LIMIT }),
    },
  ],
  handler: async ({ path: raw, offset, limit }, ctx) => {
    const path = normalizePath(raw, "read_file");
    const opened = await readTextFile(openWorkspace(ctx), path, "read_file", "it cannot be shown as text.");
    if ("answer" in opened) return opened.answer;
    const stored = opened.file;
    const text = opened.text;
    // Counted in a paced pass that keeps only the window's line starts, not split: splitting 10 MiB
    // of short lines holds the isolate for half a second.
    const window = await lineWindow(text, offset, offset + limit - 1, pacerOf(ctx));
    // A final newline ends the last line; it does not start an empty one.
    const total = text === "" ? 0 : window.count - (text.endsWith("\n") ? 1 : 0);
    /** Line n (1-based) without its `\r\n` or `\n` ending, at most MAX_LINE_CHARS + 1 characters of it. */
    const lineAt = (n: number): { text: string; long: boolean } => {
      const start = window.start(n);
      let end = window.end(n);
      if (end < text.length && text.charCodeAt(end - 1) === 13 && end > start) end--;
      return { text: text.slice(start, Math.min(end, start + MAX_LINE_CHARS)), long: end - start > MAX_LINE_CHARS };
    };
    const base = { path, total_lines: total, file_size: stored.size, is_binary: false };
    if (total === 0) return { ...base, content: "", truncated: false, hint: `The file is empty (${stored.size} bytes).` };
    if (offset > total)
      return {
        ...base,
        content: "",
        truncated: false,
        hint: `offset ${offset} is past the end: the file has ${total} lines; use an offset from 1 to ${total}.`,
      };
    const out: string[] = [];
    let chars = 0;
    let last = offset - 1;
    for (let n = offset; n <= Math.min(total, offset + limit - 1); n++) {
      const line = lineAt(n);
      const shown = `${n}|${line.long ? `${line.text}... [truncated]` : line.text}`;
      // The first line always fits, so a window always moves forward.
      if (out.length > 0 && chars + shown.length + 1 > MAX_WINDOW_CHARS) break;
      out.push(shown);
      chars += shown.length + 1;
      last = n;
    }
    const truncated = last < total;
    return {
      ...base,
      content: out.join("\n"),
      truncated,
      ...(truncated ? { hint: `Use offset=${last + 1} to continue reading (showing ${offset}-${last} of ${total} lines).` } : {}),
    };
  },
});
