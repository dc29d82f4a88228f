/**
 * Where a person decides an approval and where the agent fetches its outcome. One helper, so
 * the pending result, the page and the docs always name the same paths.
 */

/** The approvals web page; `/approvals/{id}` shows one approval. */
export const APPROVAL_PAGE_PATH = "/approvals";

/** The longest `wait` of `GET /v1/approvals/{id}`, in seconds. */
export const MAX_WAIT_SECONDS = 30;

/**
 * The page URL of one approval: absolute when the door knows the origin the caller used,
 * otherwise a path (MCP and webhook doors may not know it).
 */
export function approvalPageUrl(origin: string | undefined, id: string): string {
  return `${origin ?? ""}${APPROVAL_PAGE_PATH}/${encodeURIComponent(id)}`;
}

/** The long-poll request that returns the approval's outcome, for the model's suggestion. */
export function approvalPollPath(id: string, sessionId: string): string {
  return `/v1/approvals/${encodeURIComponent(id)}?session_id=${encodeURIComponent(sessionId)}&wait=${MAX_WAIT_SECONDS}`;
}
