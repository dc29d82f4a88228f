/**
 * The Session object's RPC contract, as types only: what the approval stage sends and gets
 * back, what a decision carries, and the function the composition root hands the object to run
 * an approved call. The stage's stub and the object both import this, never each other.
 */
import type { ApprovedCall, CallOutcome } from "../pipeline/types.ts";
import type { TodoIssue, TodoItemInput, TodoList } from "../todo/todo-list.ts";
import type { ApprovalScope, ApprovalView } from "./approval-view.ts";

/** What the approval stage sends when a call needs approval. */
export interface ApprovalRequest {
  sessionId: string;
  toolCallId: string;
  tool: string;
  toolset: string | undefined;
  /** The final arguments (after validation and pre-call hooks). */
  arguments: Record<string, unknown>;
  /**
   * Their canonical JSON and its SHA-256, computed once by the approval stage (which compares the
   * same hash when the approved call runs), so the object does not serialise and hash them again.
   */
  exact: string;
  bindingSha256: string;
  requestedBy: string;
  /**
   * The same tool with the same arguments, asked again by the key in this session, is the same
   * request whatever its tool call id (MCP sessions, whose JSON-RPC ids change on every send):
   * it gets the earlier approval, pending or settled, unless that one expired undecided.
   */
  matchArguments: boolean;
  ttlMs: number;
  /** The origin the caller used, for the page URL in the notification. */
  origin: string | undefined;
  /** Where to notify a new approval (APPROVAL_NOTIFY_URL), and the guard's allow list. */
  notify: { url: string; secret: string } | undefined;
  outboundAllow: readonly string[];
  /** The agent run that asked (src/agent/): woken when the approval settles. */
  runId?: string;
}

/**
 * `granted`: a session-scope grant covers the tool; `pending` / `settled`: the approval of this
 * tool call id (created now, or asked before); `call_id_reused`: this tool call id was asked
 * before for another tool or other arguments (`firstTool` is that earlier call's tool).
 */
export type RequestAnswer =
  | { kind: "granted"; approvalId: string }
  | { kind: "pending"; approval: ApprovalView }
  | { kind: "settled"; approval: ApprovalView }
  | { kind: "call_id_reused"; toolCallId: string; firstTool: string };

export interface DecisionInput {
  id: string;
  sessionId: string;
  decision: "approve" | "deny";
  scope: ApprovalScope;
  reason?: string | undefined;
  decidedBy: string;
  /** The deciding request's x-request-id: an approved call's run and its audit record carry it. */
  requestId?: string | undefined;
}

export type DecisionAnswer = { ok: true; approval: ApprovalView } | { ok: false; kind: "not_found" } | { ok: false; kind: "conflict"; approval: ApprovalView };

/** A todo call: `todos` absent reads the list; `merge` false replaces it, true merges by id. */
export interface TodoUpdate {
  keyId: string;
  todos: TodoItemInput[] | undefined;
  merge: boolean;
}

/** The key's list after the call (unchanged when refused, with the fields to fix). */
export type TodoAnswer = { ok: true; list: TodoList; changed: boolean } | { ok: false; issues: TodoIssue[]; list: TodoList };

/** A resources/subscribe, resources/unsubscribe, or (`check`) whether the key is subscribed to `uri`. */
export interface SubscriptionChange {
  keyId: string;
  uri: string;
  action: "subscribe" | "unsubscribe" | "check";
}

/** Whether the key is subscribed after the change; `full` when a subscribe found the cap reached. */
export type SubscriptionAnswer = { subscribed: boolean; full?: true };

/** The Session object's RPC methods (the class implements this). */
export interface SessionApi {
  request(input: ApprovalRequest): Promise<RequestAnswer>;
  get(id: string, sessionId: string): Promise<ApprovalView | undefined>;
  wait(id: string, sessionId: string, timeoutMs: number): Promise<ApprovalView | undefined>;
  decide(input: DecisionInput): Promise<DecisionAnswer>;
  todo(update: TodoUpdate): Promise<TodoAnswer>;
  /** Changes or reads the key's MCP resource subscriptions in this session (session-subscriptions.ts). */
  subscriptions(change: SubscriptionChange): Promise<SubscriptionAnswer>;
  /** Ends the key's session-wide grants in this session (an MCP client's DELETE); how many there were. */
  endGrants(keyId: string): Promise<number>;
}

/** An approved call as its approval row keeps it. */
export interface ApprovedRun {
  tool: string;
  callId: string;
  sessionId: string;
  requestedBy: string;
  arguments: Record<string, unknown>;
  approved: ApprovedCall;
  waitUntil: (promise: Promise<unknown>) => void;
}

export type RunApproved = (env: Env, run: ApprovedRun) => Promise<CallOutcome>;
