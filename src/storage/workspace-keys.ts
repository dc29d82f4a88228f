/**
 * The R2 key layout of the files toolset's workspaces (`WORKSPACE` bucket). docs/storage.md has
 * the row; change both together.
 *
 * One object per file, its key the workspace's prefix then the file's normalised path. The
 * caller's ids are percent-encoded, so an id holding `/` cannot reach into another workspace's
 * prefix, and a session workspace still carries its key: two keys that pick the same session id
 * never share files.
 */

export const WORKSPACE_KEY_PREFIX = "ws/";

/** Whose files one workspace holds (WORKSPACE_SCOPE). */
export type WorkspaceScope = "key" | "session";

/** The prefix under which one workspace's files live, ending in `/`. */
export function workspacePrefix(scope: WorkspaceScope, keyId: string, sessionId: string): string {
  const key = encodeURIComponent(keyId);
  return scope === "key" ? `${WORKSPACE_KEY_PREFIX}key/${key}/` : `${WORKSPACE_KEY_PREFIX}session/${key}/${encodeURIComponent(sessionId)}/`;
}
