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
 * One message per delivery. It stays in the queue until the delivery's calls have run and, when
 * the hook has a callback URL, the results have reached it: a callback that fails retries the
 * same message (the calls, already done, do not run again).
 */
export const HookMessageSchema = z.object({
  deliveryId: z.string().min(1).max(64),
});

export type HookMessage = z.infer<typeof HookMessageSchema>;

/** Whether a batch came from one of the hook queues (the Worker's one `queue` handler serves all). */
export const isHookQueue = (queue: string): boolean => queue === HOOKS_QUEUE_NAME || queue === HOOKS_DLQ_NAME;
