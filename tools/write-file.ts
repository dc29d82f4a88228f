/**
 * write_file: creates or replaces a whole workspace file. Over-the-cap content and content that
 * is read_file's numbered output pasted back (a common model slip) are refused before anything
 * is written.
 */
import { z } from "zod";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { checkFileSize, formatBytes, MAX_FILE_BYTES, openWorkspace, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { fileResource, MAX_PATH_BYTES, normalizePath } from "./lib/workspace/workspace-path.ts";

const NUMBERED_LINE = /^\s*\d+\|/;

/**
 * Characters the read_file-output check looks at: a pasted window shows at the start, and
 * splitting all of a 10 MiB body into lines would hold the isolate for half a second.
 */
const SAMPLED_CHARS = 64 * 1024;

/** Most non-blank lines of the body's start look like `12|...`: the model copied read_file's window, numbers and all. */
function looksLikeReadOutput(content: string): boolean {
  const lines = content
    .slice(0, SAMPLED_CHARS)
    .split("\n")
    .filter((l) => l.trim() !== "");
  if (lines.length < 3) return false;
  return lines.filter((l) => NUMBERED_LINE.test(l)).length / lines.length >= 0.6;
}

const encoder = new TextEncoder();

registry.register({
  name: "write_file",
  toolset: "files",
  emoji: "✍️",
  check: workspaceAvailable,
  writes: fileResource,
  schema: () =>
    z.object({
      path: z
        .string()
        .min(1)
        .max(MAX_PATH_BYTES)
        .describe(
          `Workspace-relative file path, '/'-separated, at most ${MAX_PATH_BYTES} bytes; no leading '/', no '..'. Directories are implied by the path. Example: 'src/app.ts'.`,
        ),
      content: z
        .string()
        .max(MAX_FILE_BYTES)
        .describe(`The whole new file body, UTF-8 text, at most ${formatBytes(MAX_FILE_BYTES)}. Replaces any existing content. No line-number prefixes.`),
    }),
  description:
    `Creates a file in your workspace, or replaces its whole content. For a small change to an existing file use patch instead. ` +
    `Returns path and bytes_written. Files are limited to ${formatBytes(MAX_FILE_BYTES)}.`,
  example: { path: "notes/todo.md", content: "# Todo\n- write tests\n" },
  worstInputs: [
    {
      name: "10 MiB of empty lines (the read_file check must not split them)",
      args: () => ({ path: "worst/write-lines.txt", content: "\n".repeat(MAX_FILE_BYTES) }),
      // The door, not the tool: a 20 MiB body (each newline escaped) is parsed twice, the request
      // and then its arguments string, which V8 does in one synchronous call each; measured
      // 420-660 ms under `wrangler dev` here. Linear in MAX_BODY_BYTES (the suite raises it to
      // 32 MiB; the default 1 MiB keeps this under 50 ms). docs/bounded-work.md.
      holdsIsolateMs: 1_500,
    },
    {
      name: "10 MiB of 'N|' numbered lines, refused as read_file output",
      // As above: a body of 10 MiB parsed twice by the door (measured up to 420 ms here).
      holdsIsolateMs: 1_500,
      args: () => ({ path: "worst/write-numbered.txt", content: "1|\n".repeat(Math.floor(MAX_FILE_BYTES / 3)) }),
    },
  ],
  handler: async ({ path: raw, content }, ctx) => {
    const path = normalizePath(raw, "write_file");
    const bytes = encoder.encode(content);
    checkFileSize(bytes.length, path, "write_file", "content");
    if (looksLikeReadOutput(content)) {
      throw new ToolFailureError({
        kind: "invalid_arguments",
        name: "write_file",
        issues: [
          {
            path: "content",
            message: "The content looks like read_file output ('12|text' lines); strip the line-number prefixes and write the file's text itself.",
          },
        ],
      });
    }
    const ws = openWorkspace(ctx);
    await ws.bucket.put(ws.prefix + path, bytes, { httpMetadata: { contentType: "text/plain; charset=utf-8" } });
    return { path, bytes_written: bytes.length };
  },
});
