/** The JSON body of a failed call, as the model reads it; envelope.ts builds it from a ToolFailure. */
import type { ErrorCode, FieldIssue, Stage } from "./tool-failure.ts";

/** The JSON body of every failed call. */
export interface ErrorEnvelope {
  error: string;
  error_code: ErrorCode;
  stage: Stage;
  suggestion: string;
  retryable: boolean;
  retry_after_ms?: number;
  /** Per-field problems of INVALID_ARGUMENTS. */
  issues?: readonly FieldIssue[];
  /** APPROVAL_*: which approval, until when (ISO 8601, for the model), and the page a person uses. */
  approval?: { id: string; expires_at: string; url: string };
  /**
   * CONNECTION_REQUIRED: the server, and the one-time link that connects the caller's own account
   * there; or, with `elicitation_id`, the link a federated server itself asked a person to open
   * (its URL elicitation, MCP 2025-11-25).
   */
  connection?: { server: string; url: string | null; expires_at: string | null; elicitation_id?: string };
}
