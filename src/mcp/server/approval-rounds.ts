/**
 * A call waiting for a person's approval, in the modern era (MCP 2026-07-28): answered with the
 * revision's multi-round-trip mechanism, as the v2 SDK's client drives it. The first answer is
 * `input_required` with a URL-mode elicitation naming the approval and its page (the client
 * shows it to its user), and a signed `requestState`. The client's retry, which echoes the
 * state, is held until a person decides (up to MAX_WAIT_SECONDS) and answered with the call's
 * outcome; while the approval is still pending, it is answered `input_required` again with the
 * state alone, which the SDK retries by itself. No one polls the REST API.
 *
 * A retry never runs the tool: the approvals layer runs an approved call once, by itself, and a
 * retry only reads what it stored. Nor can a retry skip the approval: the state names an
 * approval this key asked for, for this tool and these arguments, and a state that does not
 * verify is refused.
 */
import { MAX_WAIT_SECONDS } from "../../approvals/approval-url.ts";
import { isSettled } from "../../approvals/approval-view.ts";
import { getApprovalInSession } from "../../approvals/approvals.ts";
import { missingCapability } from "../replies/question-capability.ts";
import type { ApprovalTicket, CallToolResult } from "./call-result.ts";
import { type Answer, RPC_INVALID_PARAMS } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";
import { type RoundBinding, signState } from "./request-state.ts";

/** A state outlives its approval by this much, so a late retry reads "expired", not a refusal. */
const STATE_GRACE_MS = 5 * 60_000;

/** Whether the client declared URL-mode elicitation in this request (the revision: per request, never remembered). */
export function acceptsUrlElicitation(ctx: McpContext): boolean {
  // The one reading of the capability that a question itself is checked against (question-capability.ts).
  return ctx.modern !== undefined && missingCapability("elicitation/create", { mode: "url" }, ctx.modern.clientCapabilities) === undefined;
}

/** An `input_required` result as JSON text; its `resultType` comes after modernResult's `complete`, so it wins. */
export function inputRequiredJson(inputRequests: Record<string, unknown> | undefined, requestState: string | undefined): string {
  return JSON.stringify({
    resultType: "input_required",
    ...(inputRequests === undefined ? {} : { inputRequests }),
    ...(requestState === undefined ? {} : { requestState }),
  });
}

/**
 * The first round of a pending call, or undefined when the modern answer cannot be given (no
 * signing secret, or a page URL that is not absolute, which URL-mode elicitation requires):
 * then the 2025 text answers, as before.
 */
export async function approvalRound(
  ticket: ApprovalTicket,
  presentedTool: string,
  binding: RoundBinding,
  sessionId: string,
  ctx: McpContext,
): Promise<Answer | undefined> {
  const secret = ctx.scope.config.mcpSessions.secret;
  if (secret === undefined || !/^https?:\/\//.test(ticket.url)) return undefined;
  const memory = { kind: "approval", approvalId: ticket.id, sessionId } as const;
  const state = await signState(secret, binding, memory, Math.max(0, ticket.expiresAt - Date.now()) + STATE_GRACE_MS);
  const message =
    `Tool '${presentedTool}' needs a person's approval before it runs: approval ${ticket.id}, pending until ${new Date(ticket.expiresAt).toISOString()}. ` +
    `A person decides at ${ticket.url}. Accept to wait for the decision; the call's outcome follows once it is made (the approved call runs once, by itself).`;
  return {
    result: inputRequiredJson({ [`approval-${ticket.id}`]: { method: "elicitation/create", params: { mode: "url", message, url: ticket.url } } }, state),
  };
}

/** A retry of a pending call: its outcome once settled (waiting for a decision first), else another round on the same state. */
export async function resumeApprovalRound(
  approvalId: string,
  sessionId: string,
  state: string,
  ctx: McpContext,
  waitMs = MAX_WAIT_SECONDS * 1000,
): Promise<Answer> {
  const view = await getApprovalInSession(ctx.scope.env, sessionId, approvalId, waitMs);
  if (view === undefined || view.requestedBy !== ctx.scope.keyId) {
    return {
      error: {
        code: RPC_INVALID_PARAMS,
        message: `Invalid params: approval ${approvalId} is no longer known. Call the tool again without requestState to ask anew.`,
      },
    };
  }
  if (!isSettled(view) || view.result === undefined) return { result: inputRequiredJson(undefined, state) };
  const result: CallToolResult = { content: [{ type: "text", text: view.result.content }], ...(view.result.status === "error" ? { isError: true } : {}) };
  return { result: JSON.stringify(result) };
}
