/** The files under a directory of a workspace, listed from R2 page by page. */
import type { Workspace } from "./workspace.ts";

export interface ListedFile {
  path: string;
  size: number;
}

export interface Listing {
  files: ListedFile[];
  /** More files exist past `max`. */
  truncated: boolean;
}

/**
 * Every file under `dir` (`""` for the whole workspace), in key order, at most `max`. When
 * `dir` names a file rather than a directory, that file alone.
 */
export async function listPaths(ws: Workspace, dir: string, max: number): Promise<Listing> {
  const base = ws.prefix + (dir === "" ? "" : `${dir}/`);
  const files: ListedFile[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ws.bucket.list({ prefix: base, limit: Math.min(1000, max + 1 - files.length), ...(cursor === undefined ? {} : { cursor }) });
    for (const object of page.objects) files.push({ path: object.key.slice(ws.prefix.length), size: object.size });
    if (files.length > max) return { files: files.slice(0, max), truncated: true };
    if (!page.truncated) break;
    cursor = page.cursor;
  }
  if (files.length === 0 && dir !== "") {
    const single = await ws.bucket.head(ws.prefix + dir);
    if (single !== null) return { files: [{ path: dir, size: single.size }], truncated: false };
  }
  return { files, truncated: false };
}
