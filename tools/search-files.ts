/**
 * search_files: Hermes's grep-and-find over the workspace. Content patterns run on re2js, a
 * linear-time engine (lib/workspace/re2.ts says why), with a work budget (characters tested), a
 * time budget checked at each file, and caps on files and results, so no pattern and no
 * workspace can hold the isolate.
 */
import { z } from "zod";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { loadRe2, type Re2 } from "../src/runtime/re2.ts";
import { compileGlob } from "./lib/workspace/glob.ts";
import { listPaths } from "./lib/workspace/list-paths.ts";
import { type Pacer, pacerOf } from "./lib/workspace/pacer.ts";
import { filePrefilter, scanContent } from "./lib/workspace/scan-content.ts";
import { openWorkspace, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { MAX_PATH_BYTES, normalizePath, WHOLE_WORKSPACE } from "./lib/workspace/workspace-path.ts";

/** Files a content search reads at most; a bigger tree is searched by narrowing path or file_glob. */
export const MAX_CONTENT_FILES = 1000;
/** Names a file search matches against at most. */
const MAX_LISTED_FILES = 10_000;
/** Wall-clock budget of one search, checked at each file (lib/workspace/scan-content.ts says why). */
export const SEARCH_BUDGET_MS = 10_000;
/**
 * Characters one search tests at most: the bound on its CPU inside a file, where the clock does
 * not move. re2js tests about 10 MB/s on a pathological pattern in workerd, so this is a few
 * seconds at worst.
 */
export const MAX_SEARCH_CHARS = 32 * 1024 * 1024;
const MAX_LIMIT = 200;

function compileOrRefuse<T>(compile: () => T, field: string, kind: string, value: string): T {
  try {
    return compile();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolFailureError({
      kind: "invalid_arguments",
      name: "search_files",
      issues: [
        {
          path: field,
          message: `'${value.slice(0, 100)}' is not a valid ${kind}: ${reason}. Patterns use RE2 syntax (no look-around, no back-references); escape metacharacters such as '(' as '\\\\('.`,
        },
      ],
    });
  }
}

const page = <T>(items: readonly T[], offset: number, limit: number): T[] => items.slice(offset, offset + limit);

/** The files whose paths `matches` accepts: ten thousand paths of up to 512 bytes each are tested in paced slices. */
async function matching<T extends { path: string }>(files: readonly T[], matches: (path: string) => boolean, pacer: Pacer): Promise<T[]> {
  const kept: T[] = [];
  for (const file of files) {
    if (matches(file.path)) kept.push(file);
    await pacer.step(file.path.length + 1);
  }
  return kept;
}

/** Files the worst inputs search: small TypeScript files in nested directories, as a model's workspace holds. */
const manyFiles = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    tool: "write_file",
    args: { path: `worst/search/d${i % 10}/e${i % 7}/f${i}.ts`, content: `export const n${i} = ${i};\n` },
  }));

registry.register({
  name: "search_files",
  toolset: "files",
  readOnly: true,
  emoji: "🔎",
  check: workspaceAvailable,
  reads: WHOLE_WORKSPACE,
  timeoutMs: SEARCH_BUDGET_MS + 5_000,
  schema: () =>
    z.object({
      pattern: z
        .string()
        .min(1)
        .max(1000)
        .describe(
          "target 'content': a regular expression in RE2 syntax (as ripgrep: no look-around or back-references), tested on each line; start it with (?i) to ignore case. Example: 'TODO|FIXME'. target 'files': a glob on file names, or on whole paths when it has a '/'. Example: '*.test.ts'.",
        ),
      target: z
        .enum(["content", "files"])
        .default("content")
        .describe("'content' searches inside files (grep), 'files' matches file names (find). Default 'content'."),
      path: z
        .string()
        .max(MAX_PATH_BYTES)
        .default("")
        .describe("Directory or file to search, workspace-relative; '' or '.' for the whole workspace. Example: 'src'."),
      file_glob: z.string().min(1).max(200).optional().describe("target 'content' only: search only files whose names match this glob. Example: '*.md'."),
      output_mode: z
        .enum(["content", "files_only", "count"])
        .default("content")
        .describe("target 'content' only: 'content' lists matching lines, 'files_only' the files with a match, 'count' matches per file. Default 'content'."),
      limit: z.number().int().min(1).max(MAX_LIMIT).default(50).describe(`Results to return, 1-${MAX_LIMIT}. Default 50.`),
      offset: z.number().int().min(0).max(100_000).default(0).describe("Results to skip, for paging: the previous offset plus limit. Default 0."),
    }),
  description:
    `Searches your workspace: inside files for lines matching a regular expression (target 'content'), or for file names matching a glob (target 'files'). ` +
    `Matches come as {path, line, content}, line 1-based. Results are capped (limit, offset to page); a content search reads at most ${MAX_CONTENT_FILES} files and ${MAX_SEARCH_CHARS / (1024 * 1024)} MiB of text and stops after ${SEARCH_BUDGET_MS / 1000} s, saying so (limit_reason). Binary files are skipped.`,
  example: { pattern: "TODO", target: "content", path: "src", file_glob: "*.ts", limit: 20 },
  worstInputs: [
    {
      name: "a glob of ten '**/' segments over 1,000 files (catastrophic on a backtracking engine)",
      setup: () => manyFiles(1000),
      args: () => ({ pattern: `${"**/".repeat(10)}*.ts`, target: "files", limit: 200 }),
    },
    {
      name: "a nested-quantifier pattern counting every line of a 10 MiB file of 5 million short lines",
      setup: () => [{ tool: "write_file", args: { path: "worst/search-lines/lines.txt", content: "a\n".repeat(5 * 1024 * 1024) } }],
      args: () => ({ pattern: "(a+)+$", target: "content", path: "worst/search-lines", output_mode: "count" }),
    },
    {
      name: "a pattern matching near the end of each of ten 10,000-character lines (the longest tested), under a file_glob of 40 alternatives",
      setup: () => [{ tool: "write_file", args: { path: "worst/search-long/long.txt", content: `${"x".repeat(10_000 - 1)}y\n`.repeat(10) } }],
      args: () => ({
        pattern: "(x|x)*y",
        target: "content",
        path: "worst/search-long",
        file_glob: `{${Array.from({ length: 40 }, (_, i) => `*${i}`).join(",")},*.txt}`,
      }),
    },
  ],
  handler: async (args, ctx) => {
    const startedAt = Date.now();
    const dir = normalizePath(args.path, "search_files", "path", true);
    const re2: Re2 = await loadRe2();
    const ws = openWorkspace(ctx);
    const { limit, offset } = args;

    if (args.target === "files") {
      const matches = compileOrRefuse(() => compileGlob(re2, args.pattern), "pattern", "glob", args.pattern);
      const listing = await listPaths(ws, dir, MAX_LISTED_FILES);
      const files = (await matching(listing.files, matches, pacerOf(ctx))).map((f) => f.path);
      const truncated = offset + limit < files.length || listing.truncated;
      return {
        total_count: files.length,
        files: page(files, offset, limit),
        truncated,
        ...(listing.truncated
          ? { total_count_is_lower_bound: true, limit_reason: `only the first ${MAX_LISTED_FILES} files were looked at; narrow path` }
          : {}),
        ...(offset + limit < files.length ? { hint: `Use offset=${offset + limit} to see more.` } : {}),
      };
    }

    const re = compileOrRefuse(() => re2.compile(args.pattern), "pattern", "regular expression", args.pattern);
    const inGlob =
      args.file_glob === undefined ? () => true : compileOrRefuse(() => compileGlob(re2, args.file_glob ?? ""), "file_glob", "glob", args.file_glob);
    const listing = await listPaths(ws, dir, MAX_LISTED_FILES);
    const candidates = await matching(listing.files, inGlob, pacerOf(ctx));
    const scanned = candidates.slice(0, MAX_CONTENT_FILES);
    const scan = await scanContent(ws, scanned, re, {
      mode: args.output_mode,
      // One more than the page, so a full page knows whether more exist.
      stopAfter: offset + limit + 1,
      maxChars: MAX_SEARCH_CHARS,
      prefilter: filePrefilter(re2, args.pattern),
      deadlineAt: startedAt + SEARCH_BUDGET_MS,
      signal: ctx.signal,
    });
    const cappedFiles = candidates.length > scanned.length || listing.truncated;
    const partial = scan.stoppedBy !== undefined || cappedFiles;
    const skipped = {
      ...(scan.skippedBinary.length > 0 ? { skipped_binary: scan.skippedBinary.slice(0, 20) } : {}),
      ...(scan.skippedTooLarge.length > 0 ? { skipped_too_large: scan.skippedTooLarge.slice(0, 20) } : {}),
    };
    const limitReason =
      scan.stoppedBy === "search_timeout"
        ? `search_timeout: stopped after ${SEARCH_BUDGET_MS / 1000} s; narrow path, file_glob or the pattern`
        : scan.stoppedBy === "work_budget"
          ? `work_budget: stopped after testing ${MAX_SEARCH_CHARS / (1024 * 1024)} MiB of text; narrow path or file_glob`
          : cappedFiles
            ? `only the first ${MAX_CONTENT_FILES} files were searched; narrow path or file_glob`
            : undefined;
    const base = { files_searched: scan.filesScanned, ...(limitReason === undefined ? {} : { limit_reason: limitReason }), ...skipped };
    const more = scan.stoppedBy === "limit";
    const hint = more ? { hint: `Results truncated. Use offset=${offset + limit} to see more, or narrow the search.` } : {};

    if (args.output_mode === "count") {
      const counts = Object.fromEntries(scan.counts);
      const total = [...scan.counts.values()].reduce((a, b) => a + b, 0);
      return { total_count: total, counts, truncated: partial, ...(partial ? { total_count_is_lower_bound: true } : {}), ...base };
    }
    const found =
      args.output_mode === "files_only"
        ? { total_count: scan.counts.size, files: page([...scan.counts.keys()], offset, limit) }
        : { total_count: scan.matches.length, matches: page(scan.matches, offset, limit) };
    return {
      ...found,
      truncated: partial,
      ...(partial ? { total_count_is_lower_bound: true } : {}),
      ...base,
      ...hint,
    };
  },
});
