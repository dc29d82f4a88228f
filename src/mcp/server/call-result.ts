/**
 * How a finished call answers `tools/call` (MCP server/tools, "Error Handling"): a result's
 * content blocks, and the pending-approval texts, which are this door's own (an MCP call cannot
 * be sent again to read its outcome). A failure's answer, JSON-RPC error or `isError` result, is
 * every door's one failure map's (formats/outcome-wire.ts).
 */
import { MAX_WAIT_SECONDS } from "../../approvals/approval-url.ts";
import { mcpFailureOf } from "../../formats/outcome-wire.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { type ContentBlock, isContentResult } from "../../registry/tool-content.ts";
import type { RpcError } from "./json-rpc.ts";
import { storedResultUri } from "./stored-result-resources.ts";

/** The approvals layer's ticket on a call that waits for a person (the outcome contract). */
export interface ApprovalTicket {
  id: string;
  /** Epoch ms. */
  expiresAt: number;
  url: string;
}

/** What the formatting needs of an outcome; `status` and `approval` as the approvals layer extends them. */
export type AnswerableOutcome = Pick<CallOutcome, "tool" | "content" | "errorCode" | "envelope" | "fault" | "value" | "truncated" | "resultHandle"> & {
  status: string;
  approval?: ApprovalTicket;
};

export interface CallToolResult {
  content: ContentBlock[];
  isError?: boolean;
}

export type ToolCallAnswer = { result: CallToolResult } | { error: RpcError };

/**
 * Maps an outcome to the `tools/call` answer; `protocolVersion` decides which block types exist,
 * `inSession` (the request carried an MCP session id) how a pending approval's outcome is read.
 */
export function toToolCallAnswer(outcome: AnswerableOutcome, protocolVersion: string, inSession = false): ToolCallAnswer {
  if (outcome.status === "ok") return { result: { content: okContent(outcome, protocolVersion) } };
  if (outcome.approval !== undefined || outcome.status === "pending_approval")
    return { result: inSession ? pendingInSession(outcome) : pendingApproval(outcome) };
  return mcpFailureOf(outcome);
}

function okContent(outcome: AnswerableOutcome, protocolVersion: string): ContentBlock[] {
  // Blocks only while the text is exactly their serialisation: a transform hook that rewrote the
  // result, or the size limit that cut it, must win over the tool's original blocks.
  if (!outcome.truncated && isContentResult(outcome.value) && JSON.stringify(outcome.value) === outcome.content) return outcome.value.content;
  const text: ContentBlock = { type: "text", text: outcome.content };
  // resource_link arrived with 2025-06-18; older clients read the handle from the text.
  if (outcome.resultHandle === undefined || protocolVersion < "2025-06-18") return [text];
  return [text, { type: "resource_link", uri: storedResultUri(outcome.resultHandle), name: `Full result of ${outcome.tool}`, mimeType: "text/plain" }];
}

/**
 * In an MCP session a call sent again with the same arguments is the same request: it gets the
 * same approval while it waits and its stored outcome once settled, never a second approval.
 */
function pendingInSession(outcome: AnswerableOutcome): CallToolResult {
  const ticket = outcome.approval;
  const waiting =
    ticket === undefined
      ? "the approval is pending"
      : `approval ${ticket.id} is pending until ${new Date(ticket.expiresAt).toISOString()}; a person decides at ${ticket.url}`;
  const text =
    `Tool '${outcome.tool}' needs human approval before it runs: ${waiting}. Once it is decided, call '${outcome.tool}' again with exactly the same arguments ` +
    "in this session to get its outcome (the approved call runs once, by itself; calling again never asks twice or runs it twice). If it is denied, do not retry.";
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * Without an MCP session, an MCP call cannot be sent again to read its approval's outcome: each tools/call is
 * a session of its own, so calling again asks for a second approval, and approving both would
 * run the action twice. The approved call runs by itself, once; the model is told where its
 * outcome is and not to call again.
 */
function pendingApproval(outcome: AnswerableOutcome): CallToolResult {
  const ticket = outcome.approval;
  const noRepeat = `Do not call '${outcome.tool}' again for this action: once a person approves it, the call runs by itself, exactly once.`;
  const text =
    ticket === undefined
      ? `Tool '${outcome.tool}' needs human approval before it runs, and the approval is pending. ${noRepeat}`
      : `Tool '${outcome.tool}' needs human approval before it runs: approval ${ticket.id} is pending until ${new Date(ticket.expiresAt).toISOString()}. ` +
        `A person decides at ${ticket.url}. ${noRepeat} Its outcome can be read with GET /v1/approvals/${encodeURIComponent(ticket.id)}?wait=${MAX_WAIT_SECONDS} (with this key; it waits for a decision); if it is denied or expires, do not retry.`;
  return { content: [{ type: "text", text }], isError: true };
}
