/**
 * list_files: one directory of the workspace (or everything under it), with sizes and times,
 * paged by R2's own cursor so a large workspace never lists in one call.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { openWorkspace, workspaceAvailable } from "./lib/workspace/workspace.ts";
import { MAX_PATH_BYTES, normalizePath, WHOLE_WORKSPACE } from "./lib/workspace/workspace-path.ts";

const MAX_LIMIT = 1000;

type Entry = { path: string; type: "file"; size: number; modified: string } | { path: string; type: "dir" };

registry.register({
  name: "list_files",
  toolset: "files",
  readOnly: true,
  emoji: "🗂️",
  check: workspaceAvailable,
  reads: WHOLE_WORKSPACE,
  schema: () =>
    z.object({
      path: z.string().max(MAX_PATH_BYTES).default("").describe("Directory to list, workspace-relative; '' or '.' for the workspace root. Example: 'src'."),
      recursive: z.boolean().default(false).describe("List every file under the directory instead of its direct entries. Default false."),
      limit: z.number().int().min(1).max(MAX_LIMIT).default(200).describe(`Entries to return, 1-${MAX_LIMIT}. Default 200.`),
      cursor: z.string().min(1).max(1024).optional().describe("next_cursor from the previous list_files call with the same path and recursive, to list on."),
    }),
  description:
    "Lists files in your workspace: a directory's files and subdirectories (type 'file' with size in bytes and modified time in ISO 8601, or type 'dir'), or with recursive every file under it. " +
    "Paged: when next_cursor is returned, call again with it.",
  example: { path: "src", recursive: false, limit: 100 },
  worstInputs: [
    {
      name: "a recursive page of 1,000 entries, the most one call lists",
      setup: () => Array.from({ length: 1000 }, (_, i) => ({ tool: "write_file", args: { path: `worst/list/d${i % 10}/f${i}.txt`, content: `${i}\n` } })),
      args: () => ({ path: "worst/list", recursive: true, limit: MAX_LIMIT }),
    },
  ],
  handler: async ({ path: raw, recursive, limit, cursor }, ctx) => {
    const dir = normalizePath(raw, "list_files", "path", true);
    const ws = openWorkspace(ctx);
    const prefix = ws.prefix + (dir === "" ? "" : `${dir}/`);
    const listed = await ws.bucket.list({ prefix, limit, ...(recursive ? {} : { delimiter: "/" }), ...(cursor === undefined ? {} : { cursor }) });
    const entries: Entry[] = [
      ...listed.delimitedPrefixes.map((p): Entry => ({ path: p.slice(ws.prefix.length, -1), type: "dir" })),
      ...listed.objects.map((o): Entry => ({ path: o.key.slice(ws.prefix.length), type: "file", size: o.size, modified: o.uploaded.toISOString() })),
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      path: dir,
      entries,
      ...(listed.truncated ? { next_cursor: listed.cursor, hint: "More entries exist: call list_files again with this next_cursor." } : {}),
      ...(entries.length === 0 && cursor === undefined
        ? { hint: dir === "" ? "The workspace is empty; write_file creates files." : `Nothing under '${dir}'.` }
        : {}),
    };
  },
});
