/**
 * A pause between slices of long synchronous work. An isolate serves every request on one
 * thread and its clock stands still while JavaScript runs, so a loop over a large input must
 * hand the thread back now and then, or every other request waits, and no deadline can fire.
 */

/** What a sliced piece of work answers to: the call's signal and deadline (ToolContext has both). */
export interface SliceBudget {
  signal?: AbortSignal | undefined;
  /** Epoch ms. */
  deadlineAt?: number | undefined;
}

/**
 * Lets the isolate serve other requests, then throws when the work should stop: its signal
 * fired or its deadline passed (the clock moved while we waited).
 *
 * @example
 * for (let at = 0; at < text.length; at += SLICE) {
 *   work(text.slice(at, at + SLICE));
 *   await yieldSlice(ctx);
 * }
 */
export async function yieldSlice({ signal, deadlineAt }: SliceBudget = {}): Promise<void> {
  await scheduler.wait(0);
  signal?.throwIfAborted();
  if (deadlineAt !== undefined && Date.now() >= deadlineAt) throw new DOMException("The call's deadline passed during long work.", "TimeoutError");
}
