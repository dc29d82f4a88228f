/** The request's `waitUntil`, for work that may outlive the response (audit records). */

/** ExecutionContext.waitUntil, or, under app.request() without one (tests), work that just runs on its own. */
export function waitUntilOf(c: { executionCtx: { waitUntil(promise: Promise<unknown>): void } }): (promise: Promise<unknown>) => void {
  try {
    const ctx = c.executionCtx;
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return (promise) => void promise.catch((error: unknown) => console.error(`background work failed: ${String(error)}`));
  }
}
