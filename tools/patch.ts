/**
 * patch: replaces one occurrence of `old_string` in a workspace file and returns a unified diff.
 * Whitespace and indentation drift are forgiven (lib/workspace/fuzzy-find.ts); an ambiguous
 * match is refused with the count and where each one is, so the model adds context rather than
 * editing the wrong place. The write is conditional on the file being unchanged since it was
 * read, so two patches racing on one file cannot lose either edit silently.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";
import { findSpans, lineNumberAt, nearLines, reindent } from "./lib/workspace/fuzzy-find.ts";
import { checkFileSize, openWorkspace, readTextFile, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { fileResource, MAX_PATH_BYTES, normalizePath } from "./lib/workspace/workspace-path.ts";

const encoder = new TextEncoder();

registry.register({
  name: "patch",
  toolset: "files",
  emoji: "🩹",
  check: workspaceAvailable,
  writes: fileResource,
  schema: z.object({
    path: z
      .string()
      .min(1)
      .max(MAX_PATH_BYTES)
      .describe(`Workspace-relative path of an existing file, '/'-separated; no leading '/', no '..'. Example: 'src/app.ts'.`),
    old_string: z
      .string()
      .min(1)
      .describe(
        "The exact text to replace, with enough surrounding lines to occur only once. Without read_file's 'N|' prefixes. Leading/trailing whitespace per line may differ from the file.",
      ),
    new_string: z.string().describe("The text to put in its place; an empty string deletes old_string."),
    replace_all: z.boolean().default(false).describe("Replace every occurrence instead of requiring exactly one. Default false."),
  }),
  description:
    "Edits a workspace file by replacing old_string with new_string (exactly one occurrence unless replace_all). " +
    "Tolerates indentation and whitespace differences between old_string and the file, re-indenting new_string to match. " +
    "Refuses an ambiguous match, saying how many there are and on which lines. Returns a unified diff of the change.",
  example: { path: "src/app.ts", old_string: "const retries = 3;", new_string: "const retries = 5;" },
  handler: async ({ path: raw, old_string: oldString, new_string: newString, replace_all: replaceAll }, ctx) => {
    const path = normalizePath(raw, "patch");
    if (oldString.trim() === "") return toolError("old_string is only whitespace; quote the text to replace, with a line of context.");
    if (oldString === newString) return toolError("old_string and new_string are identical; nothing to change.");
    const ws = openWorkspace(ctx);
    const opened = await readTextFile(ws, path, "patch", "patch edits text files only.");
    if ("answer" in opened) return opened.answer;
    const stored = opened.file;
    const before = opened.text;

    const found = findSpans(before, oldString);
    if (found === undefined) {
      // Hermes's "already applied": a resend of a patch that went through is a success, not a retry loop.
      if (newString.trim().length >= 8 && before.includes(newString)) {
        return {
          success: true,
          no_change: true,
          path,
          note: "The file already contains new_string and not old_string: this patch was applied already; do not send it again.",
        };
      }
      const near = nearLines(before, oldString);
      return toolError(
        `Could not find a match for old_string in ${path}.${near.length === 0 ? " Read the file again (read_file) and copy the text exactly." : ` Did you mean one of these lines?\n${near.join("\n")}`}`,
        { path },
      );
    }
    if (found.spans.length > 1 && !replaceAll) {
      const where = found.spans
        .slice(0, 5)
        .map((s) => `  L${lineNumberAt(before, s.start)}: ${before.slice(s.start, s.end).split("\n")[0]?.trim().slice(0, 80) ?? ""}`);
      const more = found.spans.length > 5 ? `\n  ... and ${found.spans.length - 5} more` : "";
      return toolError(
        `Found ${found.spans.length} matches for old_string in ${path}. Add surrounding lines to old_string so it matches once, or set replace_all to true. Matches:\n${where.join("\n")}${more}`,
        { path, match_count: found.spans.length },
      );
    }

    const crlf = before.includes("\r\n");
    let after = before;
    // From the end backwards, so earlier spans' offsets stay valid.
    for (const span of [...found.spans].reverse()) {
      let replacement = found.strategy === "exact" ? newString : reindent(newString, oldString, before.slice(span.start, span.end));
      // A model writes "\n"; a CRLF file keeps its line endings whichever way the match was found.
      if (crlf) replacement = replacement.replace(/\r?\n/g, "\r\n");
      after = after.slice(0, span.start) + replacement + after.slice(span.end);
    }
    const bytes = encoder.encode(after);
    checkFileSize(bytes.length, path, "patch", "new_string");
    const written = await ws.bucket.put(ws.prefix + path, bytes, {
      onlyIf: { etagMatches: stored.etag },
      httpMetadata: { contentType: "text/plain; charset=utf-8" },
    });
    if (written === null) return toolError(`${path} changed while it was being patched (another call wrote it); read it again and resend the patch.`, { path });
    return {
      success: true,
      path,
      strategy: found.strategy,
      replacements: found.spans.length,
      diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY }),
    };
  },
});
