/**
 * Circuit breakers per tool and per upstream host: after N consecutive failures calls are
 * refused for a cooldown; after it, exactly one probe call is let through and its outcome
 * closes or re-opens the circuit.
 *
 * State lives in the isolate's memory, not in a Durable Object. A breaker exists to shed load
 * fast: a Durable Object round trip on every call would cost more than the failures it saves,
 * and would make the breaker itself a shared point of failure. Each isolate learns the state
 * from its own traffic within N calls, which is what a breaker needs. The trade-off: a
 * fleet-wide view (and survival across isolate restarts) is not offered.
 */

export interface BreakerSettings {
  failureThreshold: number;
  cooldownMs: number;
}

export type Admission = { admitted: true; probe: boolean } | { admitted: false; retryAfterMs: number; failures: number };

export type BreakerState = "closed" | "open" | "half_open";

/** A closed circuit's answer, shared: every call of a healthy tool asks, so it allocates nothing. */
const ADMITTED: Admission = Object.freeze({ admitted: true, probe: false });

export class CircuitBreaker {
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  /** Whether a call may go ahead now; in the half-open state only one probe at a time. */
  admit(settings: BreakerSettings, now: number): Admission {
    if (this.#openedAt === undefined) return ADMITTED;
    const waited = now - this.#openedAt;
    if (waited < settings.cooldownMs) return { admitted: false, retryAfterMs: settings.cooldownMs - waited, failures: this.#failures };
    if (this.#probing) return { admitted: false, retryAfterMs: Math.min(settings.cooldownMs, 1_000), failures: this.#failures };
    this.#probing = true;
    return { admitted: true, probe: true };
  }

  /**
   * A call succeeded. Only the probe may close an open circuit: a slow call admitted before the
   * circuit opened says nothing about the tool now.
   */
  succeeded(probe: boolean): void {
    if (this.#openedAt !== undefined && !probe) return;
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#probing = false;
  }

  failed(settings: BreakerSettings, now: number, probe: boolean): void {
    this.#failures += 1;
    if (probe || this.#failures >= settings.failureThreshold) this.#openedAt = now;
    if (probe) this.#probing = false;
  }

  /** A call that ended without a verdict (the client went away); a probe frees its slot. */
  released(probe: boolean): void {
    if (probe) this.#probing = false;
  }

  state(settings: BreakerSettings, now: number): BreakerState {
    if (this.#openedAt === undefined) return "closed";
    return now - this.#openedAt < settings.cooldownMs ? "open" : "half_open";
  }
}

/** Breakers by key (`tool:<name>`, `host:<hostname>`), created on first use. */
export class BreakerRegistry {
  readonly #breakers = new Map<string, CircuitBreaker>();

  get(key: string): CircuitBreaker {
    let breaker = this.#breakers.get(key);
    if (breaker === undefined) {
      breaker = new CircuitBreaker();
      this.#breakers.set(key, breaker);
    }
    return breaker;
  }

  reset(): void {
    this.#breakers.clear();
  }
}

export const toolBreakerKey = (tool: string): string => `tool:${tool}`;
export const hostBreakerKey = (host: string): string => `host:${host}`;

/** The isolate's breakers. */
export const breakers = new BreakerRegistry();
