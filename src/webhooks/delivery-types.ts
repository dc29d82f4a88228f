/**
 * The shapes of a webhook delivery as the `hook_deliveries` table keeps it (delivery-store.ts):
 * the row as read back, the calls it holds, their results, and a run webhook's plan and outcome.
 */
export const DELIVERY_STATUSES = ["queued", "running", "done", "failed", "awaiting_approval"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type CallbackStatus = "pending" | "delivered" | "failed" | "refused";

/** A call as the webhook's mapping produced it, stored until the consumer runs it. */
export interface StoredCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** One call's result as the delivery keeps it (snake_case: it is served as it is). */
export interface StoredCallResult {
  id: string;
  tool: string;
  /** "ok", "error", or "pending_approval" (the approvals layer's outcome contract). */
  status: string;
  error_code: string | null;
  /** What a model would read: the tool's result, or the JSON error envelope. */
  content: string;
  duration_ms: number;
  attempts: number;
  approval?: { id: string; expires_at: number; url: string };
}

/** What a run webhook's delivery starts (column `run_plan`), decided from the payload at acceptance. */
export interface RunPlan {
  messages: { role: "system" | "user"; content: string }[];
  model: string | undefined;
  max_turns: number | undefined;
  toolsets: string[] | undefined;
  /** The call the answer fills (WebhookReplyCall), if the webhook makes one. */
  reply: { name: string; arguments: Record<string, unknown>; answer_argument: string } | undefined;
}

/** How a delivery's run ended (column `run_outcome`), as the callback and the delivery view show it. */
export interface RunOutcome {
  id: string;
  status: string;
  answer: string | null;
  error: { code: string; message: string } | null;
}

export interface Delivery {
  id: string;
  hook: string;
  providerDeliveryId: string;
  receivedAt: number;
  status: DeliveryStatus;
  calls: StoredCall[];
  results: StoredCallResult[] | null;
  error: string | null;
  attempts: number;
  claimedAt: number | null;
  updatedAt: number;
  callbackStatus: CallbackStatus | null;
  callbackAttempts: number;
  callbackError: string | null;
  /** The x-request-id of the POST that delivered it (migration 0006); its calls' audit rows carry it too. Null on older rows. */
  requestId?: string | null;
  /** Run webhooks only (migration 0009): the plan, the run started, and how it ended. */
  runPlan?: RunPlan | null;
  runId?: string | null;
  runOutcome?: RunOutcome | null;
}
