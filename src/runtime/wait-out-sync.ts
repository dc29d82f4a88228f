/**
 * How a request waits for a sync another request started (MCP federation, OpenAPI sources): by
 * its own timers, never by awaiting the other request's promise. On workerd a request that
 * awaited it could resume in the syncing request's I/O context, and its next touch of its own
 * body then failed with "Cannot perform I/O on behalf of a different request"; a promise the
 * other request resolves does not do either, since workerd may cancel a waiter with no I/O of
 * its own pending as hung.
 */

/**
 * Polls every `pollMs` until `stillSyncing()` is false, or `giveUpAfterMs` passed: the syncing
 * request was cancelled mid-sync (its promise then never settles), and the caller should let the
 * next request sync. Answers which of the two happened.
 */
export async function waitOutSync(stillSyncing: () => boolean, now: () => number, giveUpAfterMs: number, pollMs: number): Promise<"ended" | "gave_up"> {
  const giveUpAt = now() + giveUpAfterMs;
  while (stillSyncing()) {
    if (now() >= giveUpAt) return "gave_up";
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return "ended";
}
