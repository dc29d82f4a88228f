/** What the executor is handed for one call: its deadline, retry and breaker policy, and where its client's signal is. */
import type { RetryConfig } from "../config/config.ts";
import type { BreakerSettings } from "./circuit-breaker.ts";

export interface ExecutionPolicy {
  /** Epoch ms when the call must have answered. */
  deadlineAt: number;
  /** The limit the deadline came from, for the timeout message. */
  limit: { kind: "call" | "batch"; ms: number };
  /** When the call started, for the elapsed time in the timeout message. */
  startedAt: number;
  retry: RetryConfig;
  breaker: BreakerSettings;
  random?: () => number;
}

/**
 * Where the client's abort signal is read, when a call needs it: a request's signal costs CPU to
 * make, so the executor reads it only for a handler that asks, a retry or a failed call.
 */
export interface ClientSignal {
  readonly signal: AbortSignal | undefined;
}
