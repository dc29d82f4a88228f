/**
 * The shapes of an agent run, types only: what the Run object stores, what its RPC methods take
 * and return, and the events it emits. The routes, the object and delegate_task share them.
 */
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall, ChatCompletionTool } from "openai/resources/chat/completions";
import type { TurnUsage } from "./model-client.ts";

export const RUN_STATUSES = ["running", "awaiting_approval", "awaiting_input", "completed", "failed", "cancelled", "limit_reached"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run waiting on a person: a call's approval, or the answer to the agent's question (clarify). */
export const isWaiting = (status: RunStatus): boolean => status === "awaiting_approval" || status === "awaiting_input";

/** A run that will take no further step. */
export const isTerminal = (status: RunStatus): boolean => status !== "running" && !isWaiting(status);

export type Message = ChatCompletionMessageParam;
export type ToolCall = ChatCompletionMessageToolCall;
export type ClientTool = ChatCompletionTool;

export interface RunLimits {
  maxTurns: number;
  maxToolCalls: number;
  /** Epoch ms. */
  deadlineAt: number;
  tokenBudget: number | undefined;
}

/** One of a step's tool calls as the run reports it. */
export interface StepCall {
  id: string;
  tool: string;
  status: "ok" | "error" | "pending_approval" | "awaiting_input" | "client";
  error_code: string | null;
  duration_ms: number;
  approval?: { id: string; expires_at: number; url: string };
}

/** One model turn and the calls it made. */
export interface RunStep {
  turn: number;
  /** The model's time, then the calls' time (ms). */
  model_ms: number;
  tools_ms: number;
  finish_reason: string;
  calls: StepCall[];
}

/** A call waiting on a person: its tool message goes to the model once the approval settles. */
export interface PendingCall {
  callId: string;
  tool: string;
  approvalId: string;
  expiresAt: number;
  url: string;
}

/** The agent's question (clarify) waiting for the run's own principal to answer (POST /v1/runs/{id}/answer). */
export interface PendingQuestion {
  /** The clarify call's id: its tool message is the answer. */
  callId: string;
  question: string;
  /** The choices the agent offered (the person may still answer in their own words). */
  choices: string[];
  askedAt: number;
}

/** What starts a run (POST /v1/runs, /v1/chat/completions, delegate_task). */
export interface RunStart {
  id: string;
  keyId: string;
  sessionId: string;
  /** The model as resolved when the run was asked for (its key is read from env at each turn). */
  model: { name: string; model: string };
  toolset: string | undefined;
  /** A delegate_task child's toolsets (each within its parent's): only their tools may run. */
  toolsets?: string[];
  messages: Message[];
  /** Tools the client declared: their calls go back to it, unexecuted. */
  clientTools: ClientTool[];
  limits: RunLimits;
  origin: string | undefined;
  /** Set on a delegate_task child: the parent run, whose audit trail it joins. */
  parentRunId?: string;
  depth: number;
  /** Set on a run a webhook delivery started: the object tells the delivery when the run ends. */
  hook?: RunHookOrigin;
  /** Set on a run a schedule's firing started: the object tells the schedule when the run ends. */
  schedule?: RunScheduleOrigin;
  /**
   * False on a run whose caller reads no text as it arrives (a chat completion without `stream`):
   * its turns are asked for whole, in one plain request, since streaming them costs ~0.5 ms of
   * SSE parsing per turn in the `openai` package for nobody. Absent means streamed.
   */
  streamTurns?: boolean;
}

/** The webhook delivery behind a run (src/webhooks/start-delivery-run.ts). */
export interface RunHookOrigin {
  name: string;
  deliveryId: string;
}

/** The schedule behind a run (src/schedules/schedule-object.ts). */
export interface RunScheduleOrigin {
  id: string;
}

/** The run as stored and as GET /v1/runs/{id} shows it (with the transcript). */
export interface RunRecord extends Omit<RunStart, "messages"> {
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  turns: number;
  toolCalls: number;
  usage: TurnUsage;
  steps: RunStep[];
  pending: PendingCall[];
  /** The agent's question while it waits (status `awaiting_input`, or behind approvals of the same step). */
  question?: PendingQuestion | undefined;
  /**
   * The step's tool messages in call order, held back (null for a call still waiting) until no
   * call waits: the model then gets one tool message per call id, in the order it emitted them.
   */
  held: { callId: string; content: string | null }[];
  /**
   * The calls of the step in progress, stored before any of them runs: a fresh instance that
   * finds some without a result knows they were cut short, and never runs them again.
   */
  inflight: { id: string; tool: string }[];
  /** The final answer (completed), or the client tool calls it ended on. */
  answer: string | null;
  clientToolCalls: ToolCall[];
  finishReason: string | null;
  error: { code: string; message: string } | null;
  /** Set when a step is due; the object's alarm is the clock. */
  nextStepAt: number | null;
  /** A webhook run's end was queued to its delivery (run-object.ts retries by alarm until it is). */
  hookNotified?: boolean;
}

/**
 * An event of the run, numbered in order (the SSE id, resumable with Last-Event-ID). A `delta`
 * (a piece of the model's text as it streams) is sent to live readers only and never stored: it
 * carries the number of the stored event it follows, and no SSE id of its own.
 */
export interface RunEvent {
  seq: number;
  at: number;
  type: RunEventType;
  data: Record<string, unknown>;
}

export type RunEventType =
  | "run.started"
  | "delta"
  | "model.turn"
  | "tool.result"
  | "approval.pending"
  | "approval.settled"
  | "input.pending"
  | "input.answered"
  | "run.finished";
