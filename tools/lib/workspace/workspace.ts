/**
 * One caller's workspace in the `WORKSPACE` bucket: its prefix (per key, or per key and session
 * when WORKSPACE_SCOPE is "session") and the file operations the files toolset shares.
 */
import { ToolFailureError } from "../../../src/errors/tool-failure.ts";
import { toolError } from "../../../src/registry/tool-result.ts";
import type { ToolContext } from "../../../src/registry/types.ts";
import { type WorkspaceScope, workspacePrefix } from "../../../src/storage/workspace-keys.ts";
import { decodeFile } from "./text-file.ts";

/** Largest file a workspace holds: writes past it are refused, reads past it say so. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export interface Workspace {
  bucket: R2Bucket;
  /** Ends in `/`; a file's key is this plus its normalised path. */
  prefix: string;
}

/** A file's bytes as stored, with the etag a conditional write compares against. */
export interface StoredFile {
  bytes: Uint8Array;
  size: number;
  etag: string;
}

function scopeOf(env: Env): WorkspaceScope | undefined {
  const value = (env.WORKSPACE_SCOPE as string | undefined)?.trim() || "key";
  return value === "key" || value === "session" ? value : undefined;
}

/** The files toolset's availability: the bucket is bound and WORKSPACE_SCOPE is a known value. */
export function workspaceAvailable(env: Env): boolean {
  if ((env.WORKSPACE as R2Bucket | undefined) === undefined) throw new Error("the WORKSPACE R2 bucket is not bound (wrangler.toml [[r2_buckets]])");
  if (scopeOf(env) === undefined) throw new Error(`WORKSPACE_SCOPE is '${String(env.WORKSPACE_SCOPE)}'; set it to 'key' or 'session'`);
  return true;
}

/** The calling key's (or key and session's) workspace. */
export function openWorkspace(ctx: ToolContext): Workspace {
  return { bucket: ctx.env.WORKSPACE, prefix: workspacePrefix(scopeOf(ctx.env) ?? "key", ctx.keyId, ctx.sessionId) };
}

/** A file's bytes, `undefined` when there is none, or a refusal when it is over the cap. */
export async function readStoredFile(ws: Workspace, path: string, tool: string): Promise<StoredFile | undefined> {
  const object = await ws.bucket.get(ws.prefix + path);
  if (object === null) return undefined;
  if (object.size > MAX_FILE_BYTES) {
    // Its body is never read: decoding and splitting more than the cap is what the cap avoids.
    throw new ToolFailureError({
      kind: "invalid_arguments",
      name: tool,
      issues: [
        {
          path: "path",
          message: `'${path}' is ${formatBytes(object.size)}, over the workspace's ${formatBytes(MAX_FILE_BYTES)} file limit, so it cannot be opened. Use search_files to find lines in smaller files instead.`,
        },
      ],
    });
  }
  return { bytes: new Uint8Array(await object.arrayBuffer()), size: object.size, etag: object.etag };
}

/**
 * A text file's stored bytes and text, or the result a tool answers when there is none (not
 * found, with similar names) or it is binary (its kind and size, never its bytes). `use` ends
 * the binary message: what the tool does instead.
 */
export async function readTextFile(ws: Workspace, path: string, tool: string, use: string): Promise<{ file: StoredFile; text: string } | { answer: string }> {
  const file = await readStoredFile(ws, path, tool);
  if (file === undefined) {
    const { error, ...extra } = await fileNotFound(ws, path);
    return { answer: toolError(error, extra) };
  }
  const decoded = decodeFile(file.bytes);
  if (decoded.binary)
    return { answer: toolError(`Binary file (${decoded.kind}, ${formatBytes(file.size)}): ${use}`, { path, is_binary: true, file_size: file.size }) };
  return { file, text: decoded.text };
}

/** Refuses content over the file cap, naming the field that carried it. */
export function checkFileSize(bytes: number, path: string, tool: string, field: string): void {
  if (bytes <= MAX_FILE_BYTES) return;
  throw new ToolFailureError({
    kind: "invalid_arguments",
    name: tool,
    issues: [
      {
        path: field,
        message: `Writing '${path}' would make it ${formatBytes(bytes)}, over the workspace's ${formatBytes(MAX_FILE_BYTES)} file limit; split it into smaller files.`,
      },
    ],
  });
}

/** Bytes as a person reads them: `812 B`, `4.2 KB`, `10.0 MB` (binary multiples). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The directory part of a normalised path (`""` at the root). */
export function dirname(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

/**
 * A "not found" result for `path`, with up to five files of its directory whose names look like
 * it (a different case, extension or a typo), as Hermes' read_file suggests similar files.
 */
export async function fileNotFound(ws: Workspace, path: string): Promise<{ error: string; similar_files?: string[] }> {
  const dir = dirname(path);
  const listed = await ws.bucket.list({ prefix: ws.prefix + (dir === "" ? "" : `${dir}/`), delimiter: "/", limit: 200 });
  const wanted = path.slice(dir.length === 0 ? 0 : dir.length + 1).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, "");
  const scored = listed.objects
    .map((o) => o.key.slice(ws.prefix.length))
    .map((candidate) => {
      const name = candidate.slice(candidate.lastIndexOf("/") + 1).toLowerCase();
      const score =
        name === wanted
          ? 100
          : name.replace(/\.[^.]*$/, "") === stem
            ? 90
            : name.startsWith(stem) || stem.startsWith(name)
              ? 70
              : name.includes(stem) || stem.includes(name)
                ? 60
                : 0;
      return { candidate, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.candidate.localeCompare(b.candidate))
    .slice(0, 5)
    .map((s) => s.candidate);
  const error = `File not found: ${path}. Use list_files or search_files (target "files") to see which files exist.`;
  return scored.length === 0 ? { error } : { error, similar_files: scored };
}
