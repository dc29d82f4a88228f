/**
 * The `toolgate-hooks` queue's message: which delivery to work on and what to do. Only the id
 * travels; the calls and results live on the delivery's row, so a message stays a few dozen
 * bytes whatever the payload was (a queue message is capped at 128 KB, a delivery at
 * MAX_BODY_BYTES).
 */
import { z } from "zod";

/** Queue names as wrangler.toml declares them. */
export const HOOKS_QUEUE_NAME = "toolgate-hooks";
export const HOOKS_DLQ_NAME = "toolgate-hooks-dlq";

/**
 * Run a delivery. It stays in the queue until the delivery's calls have run and, when the webhook
 * has a callback URL and the delivery is done, the results have reached it: a callback that
 * fails retries the same message (the calls, already done, do not run again). Strict, so a
 * message of another kind is never taken for this one.
 */
const runDeliveryMessage = () =>
  z.strictObject({
    deliveryId: z.string().min(1).max(64),
  });

/**
 * An approval asked for by one of the delivery's calls has settled (approved and run, denied,
 * expired, or interrupted). Sent by the Session object (the delivery id is its session id); the
 * consumer reads the outcome from that object, so the message only says where to look.
 */
const approvalSettledMessage = () =>
  z.strictObject({
    kind: z.literal("approval_settled"),
    deliveryId: z.string().min(1).max(64),
    approvalId: z.string().min(1).max(64),
  });

/**
 * The agent run a delivery started has ended (completed, failed, limit_reached, cancelled). Sent
 * by the Run object (src/agent/run-object.ts), retried by its alarm until the queue takes it; the
 * consumer reads the outcome from that object, so the message only says where to look.
 */
const runFinishedMessage = () =>
  z.strictObject({
    kind: z.literal("run_finished"),
    deliveryId: z.string().min(1).max(64),
    runId: z.string().min(1).max(64),
  });

/** Lazy: the Worker entry imports this file for isWebhookQueue, and only a queue consumer parses. */
export const WebhookMessageSchema = z.lazy(() => z.union([approvalSettledMessage(), runFinishedMessage(), runDeliveryMessage()]));

export type WebhookMessage = z.infer<typeof WebhookMessageSchema>;
export type ApprovalSettledMessage = z.infer<ReturnType<typeof approvalSettledMessage>>;
export type RunFinishedMessage = z.infer<ReturnType<typeof runFinishedMessage>>;

/** Whether a batch came from one of the webhook queues (the Worker's one `queue` handler serves all). */
export const isWebhookQueue = (queue: string): boolean => queue === HOOKS_QUEUE_NAME || queue === HOOKS_DLQ_NAME;
