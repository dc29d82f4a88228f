/**
 * The request id of the code running now, carried through awaits, timers and `waitUntil` work by
 * AsyncLocalStorage (nodejs_compat), so a log line written deep in a tool or an audit send can
 * name its request without every function taking the id. Code that writes stored records takes
 * the id explicitly from its request scope; this is for log lines and for the few writers that
 * run outside a scope (pin events, approval decisions).
 */
import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

/** Runs `work` with `requestId` as the current request's id. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return current.run(requestId, work);
}

/** The current request's id, or undefined outside any request (a cron run, module load). */
export function currentRequestId(): string | undefined {
  return current.getStore();
}
