/**
 * Writes a multi-file patch's result to the R2 workspace as close to all-or-nothing as R2
 * allows. R2 has no transaction over several objects: each put or delete is atomic on its own
 * object and nothing spans two. So the commit is staged (every new body is built and checked in
 * memory before this runs), verified (each file is still as it was read: same etag, or still
 * absent), then written: puts first, each conditional on that same state, and deletes last.
 *
 * A put refused by its condition (another call wrote the file after the check) or failed by R2
 * rolls back: the files written before it get their old bytes again and created ones are
 * deleted, and the call fails saying so. What no code can cover is the isolate ending between two
 * puts (an eviction, a deploy): then some files hold the new text and some the old, and nothing
 * is deleted yet, since deletes come last; no file's content is lost, and resending the patch
 * fails visibly (its hunks or Add headers no longer fit) rather than applying twice. A delete
 * is unconditional (R2's delete takes no condition), so a write landing between the check and
 * the delete is lost: the window is the few milliseconds of the puts.
 */
import type { StoredFile, Workspace } from "./workspace.ts";

/** One file's change: its state when read (undefined: absent), and its new bytes (undefined: deleted). */
export interface StagedFile {
  path: string;
  before: StoredFile | undefined;
  after: Uint8Array | undefined;
}

export type CommitResult = { ok: true } | { ok: false; path: string; reason: string; restored: boolean };

const TEXT = { contentType: "text/plain; charset=utf-8" };

/** Puts back what `written` replaced, last first; whether every file is back. */
async function rollBack(ws: Workspace, written: readonly StagedFile[]): Promise<boolean> {
  let restored = true;
  for (const file of [...written].reverse()) {
    try {
      if (file.before === undefined) await ws.bucket.delete(ws.prefix + file.path);
      else await ws.bucket.put(ws.prefix + file.path, file.before.bytes, { httpMetadata: TEXT });
    } catch {
      restored = false;
    }
  }
  return restored;
}

/** Verifies every staged file is as it was read, then writes them all, or none (see above for R2's limits). */
export async function commitFiles(ws: Workspace, staged: readonly StagedFile[]): Promise<CommitResult> {
  const heads = await Promise.all(staged.map((file) => ws.bucket.head(ws.prefix + file.path)));
  for (const [k, file] of staged.entries()) {
    const etag = heads[k]?.etag;
    if (etag !== file.before?.etag)
      return { ok: false, path: file.path, reason: `${file.path} changed while the patch was being applied (another call wrote it)`, restored: true };
  }
  const written: StagedFile[] = [];
  for (const file of staged) {
    if (file.after === undefined) continue;
    let put: R2Object | null;
    try {
      put = await ws.bucket.put(ws.prefix + file.path, file.after, {
        // Absent when read: `*` refuses to overwrite a file another call created since.
        onlyIf: file.before === undefined ? { etagDoesNotMatch: "*" } : { etagMatches: file.before.etag },
        httpMetadata: TEXT,
      });
    } catch (error) {
      const restored = await rollBack(ws, written);
      return { ok: false, path: file.path, reason: `the workspace store failed writing ${file.path}: ${String(error).slice(0, 200)}`, restored };
    }
    if (put === null) {
      const restored = await rollBack(ws, written);
      return { ok: false, path: file.path, reason: `${file.path} changed while the patch was being written (another call wrote it)`, restored };
    }
    written.push(file);
  }
  const gone = staged.filter((file) => file.after === undefined).map((file) => ws.prefix + file.path);
  if (gone.length === 0) return { ok: true };
  try {
    // One call for every key, so the deletes land together or the call fails whole.
    await ws.bucket.delete(gone);
  } catch (error) {
    const restored = await rollBack(ws, written);
    return {
      ok: false,
      path: gone[0]?.slice(ws.prefix.length) ?? "",
      reason: `the workspace store failed deleting files: ${String(error).slice(0, 200)}`,
      restored,
    };
  }
  return { ok: true };
}
