/**
 * What an approval looks like to its readers: the HTTP routes, the approvals page and the
 * agent's long poll. The Session Durable Object keeps the full record; this view is what leaves
 * it, with secrets in the arguments already redacted (the audit log's redaction).
 */

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** `once`: this exact call; `session`: this tool with any arguments for the rest of the session. */
export const APPROVAL_SCOPES = ["once", "session"] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

export interface ApprovalView {
  id: string;
  sessionId: string;
  tool: string;
  /** The model's tool call id; sending it again in the session returns this approval's outcome. */
  toolCallId: string;
  /** The final arguments (after validation and pre-call hooks), secrets redacted. */
  arguments: Record<string, unknown>;
  /**
   * SHA-256 (hex) of the canonical JSON of the redacted arguments, as the audit log hashes them.
   * The approval binds to a hash of the exact arguments, which never leaves the Session object.
   */
  argumentsSha256: string;
  /** Key id of the caller that asked. */
  requestedBy: string;
  /** Epoch ms. */
  requestedAt: number;
  /** Epoch ms; no decision by then makes it `expired`. */
  expiresAt: number;
  status: ApprovalStatus;
  scope?: ApprovalScope;
  /** Key id of the approver (or `admin-token`). */
  decidedBy?: string;
  decidedAt?: number;
  reason?: string;
  /**
   * Once settled, the tool message the model reads: the approved call's result after it ran, or
   * the APPROVAL_DENIED / APPROVAL_EXPIRED envelope. Absent while pending or while running.
   */
  result?: { status: "ok" | "error"; errorCode: string | null; content: string };
}

/** An approval is final once denied, expired, or approved and run: then it has the model's message. */
export function isSettled(view: ApprovalView): boolean {
  return view.status !== "pending" && view.result !== undefined;
}
