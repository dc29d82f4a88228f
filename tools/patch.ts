/**
 * patch: replaces one occurrence of `old_string` in a workspace file and returns a unified diff;
 * or, in `mode: "patch"`, applies a V4A patch that adds, updates, deletes and moves several files
 * all or nothing (lib/workspace/v4a-patch.ts), as Hermes's patch has both modes.
 * Whitespace and indentation drift are forgiven (lib/workspace/fuzzy-find.ts); an ambiguous
 * match is refused with the count and where each one is, so the model adds context rather than
 * editing the wrong place. The write is conditional on the file being unchanged since it was
 * read, so two patches racing on one file cannot lose either edit silently.
 *
 * Every step is linear in the file and paced (STYLE 13): matching, sizing the result (refused
 * over the file cap before it is built), building it in one pass, and the diff.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";
import type { ToolContext } from "../src/registry/types.ts";
import { type Found, findSpans, nearLines, reindenter } from "./lib/workspace/fuzzy-find.ts";
import { LineIndex } from "./lib/workspace/line-index.ts";
import { contains } from "./lib/workspace/linear-search.ts";
import { type Pacer, pacerOf } from "./lib/workspace/pacer.ts";
import { replacedSize, replaceSpans } from "./lib/workspace/replace-spans.ts";
import { spanDiff } from "./lib/workspace/span-diff.ts";
import { applyV4aPatch } from "./lib/workspace/v4a-patch.ts";
import { checkFileSize, formatBytes, MAX_FILE_BYTES, openWorkspace, readTextFile, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { fileResource, MAX_PATH_BYTES, normalizePath } from "./lib/workspace/workspace-path.ts";

/** Matches one patch replaces at most: each is held as two offsets and a piece of the result. */
export const MAX_REPLACEMENTS = 1_000_000;
/** The diff stops at about this many characters, so the result stays under the default result cap. */
const MAX_DIFF_CHARS = 50_000;

const encoder = new TextEncoder();

/** Each match's replacement: new_string in the file's line endings, re-indented for a fuzzy match. */
async function replacementsOf(found: Found, before: string, oldString: string, newString: string, pacer: Pacer): Promise<string[]> {
  // A model writes "\n"; a CRLF file keeps its line endings whichever way the match was found.
  const shape = before.includes("\r\n") ? (s: string) => s.replace(/\r?\n/g, "\r\n") : (s: string) => s;
  if (found.strategy === "exact") return new Array<string>(found.starts.length).fill(shape(newString));
  const replacementAt = reindenter(newString, oldString, before, shape);
  const out: string[] = [];
  for (let k = 0; k < found.starts.length; k++) {
    const start = found.starts[k] ?? 0;
    const end = found.ends[k] ?? 0;
    out.push(replacementAt(start, end));
    await pacer.step(end - start + 1);
  }
  return out;
}

/** replace mode: `oldString` replaced by `newString` in the file at `path` (once, or every time with `replaceAll`). */
async function replaceIn(path: string, oldString: string, newString: string, replaceAll: boolean, ctx: ToolContext): Promise<unknown> {
  if (oldString.trim() === "") return toolError("old_string is only whitespace; quote the text to replace, with a line of context.");
  if (oldString === newString) return toolError("old_string and new_string are identical; nothing to change.");
  const ws = openWorkspace(ctx);
  const opened = await readTextFile(ws, path, "patch", "patch edits text files only.");
  if ("answer" in opened) return opened.answer;
  const stored = opened.file;
  const before = opened.text;
  const pacer = pacerOf(ctx);
  let index: LineIndex | undefined;
  const lines = async () => {
    index ??= await LineIndex.build(before, pacer);
    return index;
  };

  const found = await findSpans({ text: before, lines, pacer, max: MAX_REPLACEMENTS }, oldString);
  if (found === undefined) {
    // Hermes's "already applied": a resend of a patch that went through is a success, not a retry loop.
    if (newString.trim().length >= 8 && (await contains(before, newString, pacer))) {
      return {
        success: true,
        no_change: true,
        path,
        note: "The file already contains new_string and not old_string: this patch was applied already; do not send it again.",
      };
    }
    const near = await nearLines(await lines(), oldString, pacer);
    return toolError(
      `Could not find a match for old_string in ${path}.${near.length === 0 ? " Read the file again (read_file) and copy the text exactly." : ` Did you mean one of these lines?\n${near.join("\n")}`}`,
      { path },
    );
  }
  const count = found.starts.length;
  if (count > MAX_REPLACEMENTS) {
    return toolError(
      `old_string occurs more than ${MAX_REPLACEMENTS.toLocaleString("en-US")} times in ${path}, more than one patch replaces; use a longer old_string, or write the file anew with write_file.`,
      { path, match_count_over: MAX_REPLACEMENTS },
    );
  }
  if (count > 1 && !replaceAll) {
    const at = await lines();
    const where = found.starts.slice(0, 5).map((start, k) => {
      const line = at.lineAt(start);
      return `  L${line + 1}: ${before
        .slice(start, Math.min(at.end(line), found.ends[k] ?? start, start + 200))
        .trim()
        .slice(0, 80)}`;
    });
    const more = count > 5 ? `\n  ... and ${count - 5} more` : "";
    return toolError(
      `Found ${count} matches for old_string in ${path}. Add surrounding lines to old_string so it matches once, or set replace_all to true. Matches:\n${where.join("\n")}${more}`,
      { path, match_count: count },
    );
  }

  const replacements = await replacementsOf(found, before, oldString, newString, pacer);
  // The decoder dropped a UTF-8 byte order mark, which is not written back either.
  const bom = stored.bytes[0] === 0xef && stored.bytes[1] === 0xbb && stored.bytes[2] === 0xbf ? 3 : 0;
  const size = await replacedSize(stored.size - bom, before, found.starts, found.ends, replacements, pacer);
  checkFileSize(size, path, "patch", "new_string");
  const after = await replaceSpans(before, found.starts, found.ends, replacements, pacer);
  const diff = await spanDiff(path, await lines(), found.starts, found.ends, replacements, MAX_DIFF_CHARS, pacer);
  const written = await ws.bucket.put(ws.prefix + path, encoder.encode(after), {
    onlyIf: { etagMatches: stored.etag },
    httpMetadata: { contentType: "text/plain; charset=utf-8" },
  });
  if (written === null) return toolError(`${path} changed while it was being patched (another call wrote it); read it again and resend the patch.`, { path });
  return {
    success: true,
    path,
    strategy: found.strategy,
    replacements: count,
    diff: diff.diff,
    ...(diff.truncated ? { diff_truncated: true, hint: "The diff is cut short (a long change or long lines); read_file shows the file as it is now." } : {}),
  };
}

registry.register({
  name: "patch",
  toolset: "files",
  emoji: "🩹",
  check: workspaceAvailable,
  // Patch mode names no `path`, so this gives `workspace:*`: a multi-file patch is ordered after
  // every other workspace call of its batch, whichever files it names.
  writes: fileResource,
  schema: () =>
    z
      .object({
        mode: z
          .enum(["replace", "patch"])
          .default("replace")
          .describe(
            "'replace' (default): replace old_string with new_string in one file. 'patch': apply the V4A text in `patch`, which can change several files.",
          ),
        path: z
          .string()
          .min(1)
          .max(MAX_PATH_BYTES)
          .optional()
          .describe(`replace mode: workspace-relative path of an existing file, '/'-separated; no leading '/', no '..'. Example: 'src/app.ts'.`),
        old_string: z
          .string()
          .min(1)
          .max(MAX_FILE_BYTES)
          .optional()
          .describe(
            "replace mode: the exact text to replace, with enough surrounding lines to occur only once. Without read_file's 'N|' prefixes. Leading/trailing whitespace per line may differ from the file.",
          ),
        new_string: z
          .string()
          .max(MAX_FILE_BYTES)
          .optional()
          .describe(
            `replace mode: the text to put in its place; an empty string deletes old_string. The file must stay within ${formatBytes(MAX_FILE_BYTES)}.`,
          ),
        replace_all: z
          .boolean()
          .default(false)
          .describe(
            `replace mode: replace every occurrence (at most ${MAX_REPLACEMENTS.toLocaleString("en-US")}) instead of requiring exactly one. Default false.`,
          ),
        patch: z
          .string()
          .min(1)
          .max(MAX_FILE_BYTES)
          .optional()
          .describe(
            "patch mode: a V4A patch. '*** Begin Patch', then per file '*** Add File: <path>' (every line '+'), '*** Delete File: <path>', " +
              "'*** Update File: <path>' (optionally '*** Move to: <new path>') with hunks: a '@@ <a line just above the change>' anchor, then ' ' context, '-' removed and '+' added lines; " +
              "'*** Move File: <from> -> <to>'; then '*** End Patch'. Hunks apply in order, top to bottom.",
          ),
      })
      .superRefine((args, issues) => {
        // One schema for both modes (the model sees one object); each mode's fields are required here.
        const need = args.mode === "patch" ? (["patch"] as const) : (["path", "old_string", "new_string"] as const);
        for (const field of need) {
          if (args[field] === undefined)
            issues.addIssue({ code: "custom", path: [field], input: undefined, message: `${field} is required in ${args.mode} mode` });
        }
      }),
  description:
    "Edits workspace files. replace mode (default): replaces old_string with new_string in one file (exactly one occurrence unless replace_all), " +
    "tolerating indentation and whitespace differences and re-indenting new_string to match; an ambiguous match is refused with the count and lines. " +
    "patch mode: applies a V4A patch that adds, updates, deletes and moves several files, all or nothing: if any part fails, no file is changed. " +
    "Returns a unified diff of the change.",
  example: { path: "src/app.ts", old_string: "const retries = 3;", new_string: "const retries = 5;" },
  worstInputs: [
    {
      name: "replace_all of 'a' with 'ab' over 300,000 matches (one quadratic rebuild per match once took 105 s)",
      setup: () => [{ tool: "write_file", args: { path: "worst/patch-many.txt", content: "a".repeat(300_000) } }],
      args: () => ({ path: "worst/patch-many.txt", old_string: "a", new_string: "ab", replace_all: true }),
    },
    {
      name: "replace_all whose result would pass the 10 MiB cap, refused before it is built",
      setup: () => [{ tool: "write_file", args: { path: "worst/patch-cap.txt", content: "ab\n".repeat(300_000) } }],
      args: () => ({ path: "worst/patch-cap.txt", old_string: "a", new_string: "a".repeat(40), replace_all: true }),
    },
    {
      name: "a 1 MiB old_string whose first line the file lacks, against 10 MiB of near-identical lines: every strategy, the resend check and the near-line hint run and fail",
      setup: () => [{ tool: "write_file", args: { path: "worst/patch-big.txt", content: "abc abc\n".repeat(1_310_000) } }],
      args: () => ({ path: "worst/patch-big.txt", old_string: `abc abd\n${"abc abc\n".repeat(131_000)}`, new_string: `${"abc abc\n".repeat(131_000)}x` }),
    },
    {
      name: "a million and one single-character matches in 10 MiB, over the replacement cap",
      setup: () => [{ tool: "write_file", args: { path: "worst/patch-full.txt", content: "a".repeat(10 * 1024 * 1024) } }],
      args: () => ({ path: "worst/patch-full.txt", old_string: "a", new_string: "b", replace_all: true }),
    },
    {
      name: "a V4A patch of 20,000 hunks, each changing one line of a 20,000-line file (one search per hunk from the file's start would be quadratic)",
      setup: () => [{ tool: "write_file", args: { path: "worst/v4a-hunks.txt", content: Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join("") } }],
      args: () => ({
        mode: "patch",
        patch: `*** Begin Patch\n*** Update File: worst/v4a-hunks.txt\n${Array.from({ length: 20_000 }, (_, i) => `@@\n-line ${i}\n+LINE ${i}\n`).join("")}*** End Patch`,
      }),
    },
    {
      name: "a V4A patch whose first of 5,000 hunks has 100,000 lines of context that almost fit a 10 MiB file of near-identical lines",
      setup: () => [{ tool: "write_file", args: { path: "worst/v4a-context.txt", content: "abc abc\n".repeat(1_310_000) } }],
      args: () => ({
        mode: "patch",
        patch: `*** Update File: worst/v4a-context.txt\n@@\n${" abc abc\n".repeat(100_000)}- abc abd\n+x\n${"@@\n-abc abc\n+y\n".repeat(5_000)}`,
      }),
    },
    {
      name: "a 10 MiB V4A patch adding one file of five million empty lines",
      // The door, not the tool: the body's JSON (each newline escaped) is parsed twice in one
      // synchronous call each, as write_file's 10 MiB worst input (docs/bounded-work.md).
      holdsIsolateMs: 1_500,
      args: () => ({ mode: "patch", patch: `*** Add File: worst/v4a-add.txt\n${"+\n".repeat(Math.floor((MAX_FILE_BYTES - 64) / 2))}` }),
    },
  ],
  handler: async (args, ctx) => {
    if (args.mode === "patch") return applyV4aPatch(openWorkspace(ctx), args.patch ?? "", ctx, MAX_DIFF_CHARS);
    return replaceIn(normalizePath(args.path ?? "", "patch"), args.old_string ?? "", args.new_string ?? "", args.replace_all, ctx);
  },
});
