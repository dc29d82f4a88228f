/**
 * Whether a tool can work right now: its required env vars are set and its check passes.
 *
 * Check results are cached per check function for 30 s, with the original's flake grace: a
 * failure within 60 s of the last success still reports available and is not cached (reference
 * §2.6, the fix for tools vanishing on a flaky probe). Concurrent requests share one run of a
 * due check. A check that throws, or that takes longer than its own short timeout, counts as
 * unavailable.
 */
import type { AvailabilityCheck, ToolEntry } from "./types.ts";

export const CHECK_TTL_MS = 30_000;
export const CHECK_FAILURE_GRACE_MS = 60_000;
export const CHECK_TIMEOUT_MS = 5_000;

export interface Availability {
  available: boolean;
  /** Why the tool is unavailable (missing vars, false check, the check's error). */
  reason?: string;
  /** When the check that decided this ran (epoch ms); absent when nothing needed checking. */
  checkedAt?: number;
}

interface CachedCheck {
  available: boolean;
  reason?: string;
  checkedAt: number;
}

const ALWAYS_AVAILABLE: Availability = { available: true };

/** Names from `requiresEnv` that are unset or empty in this environment. */
export function missingEnv(entry: ToolEntry, env: Env): string[] {
  const vars = env as unknown as Record<string, unknown>;
  return entry.requiresEnv.filter((name) => {
    const value = vars[name];
    return value === undefined || value === null || value === "";
  });
}

export class AvailabilityCache {
  readonly #results = new Map<AvailabilityCheck, CachedCheck>();
  readonly #lastGood = new Map<AvailabilityCheck, number>();
  readonly #inFlight = new Map<AvailabilityCheck, Promise<Availability>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Availability when it is known without probing (no check, or a fresh cached result), else
   * undefined. Listing 500 tools should not cost 500 promises.
   */
  known(entry: ToolEntry, env: Env): Availability | undefined {
    if (entry.requiresEnv.length > 0 && missingEnv(entry, env).length > 0) return undefined;
    if (entry.check === undefined) return ALWAYS_AVAILABLE;
    const cached = this.#results.get(entry.check);
    return cached !== undefined && this.#now() - cached.checkedAt < CHECK_TTL_MS ? cached : undefined;
  }

  /** Availability of one tool, probing its check only when the cached result is stale. */
  async of(entry: ToolEntry, env: Env): Promise<Availability> {
    const missing = missingEnv(entry, env);
    if (missing.length > 0) {
      return { available: false, reason: `missing required environment variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}` };
    }
    if (entry.check === undefined) return ALWAYS_AVAILABLE;
    return this.#checked(entry.check, env);
  }

  /** Forgets every cached result, so the next request probes again. */
  invalidate(): void {
    this.#results.clear();
    this.#lastGood.clear();
  }

  #checked(check: AvailabilityCheck, env: Env): Promise<Availability> {
    const cached = this.#results.get(check);
    if (cached !== undefined && this.#now() - cached.checkedAt < CHECK_TTL_MS) return Promise.resolve(cached);
    let pending = this.#inFlight.get(check);
    if (pending === undefined) {
      pending = this.#probe(check, env).finally(() => this.#inFlight.delete(check));
      this.#inFlight.set(check, pending);
    }
    return pending;
  }

  async #probe(check: AvailabilityCheck, env: Env): Promise<Availability> {
    let available = false;
    let reason: string;
    try {
      available = Boolean(await withTimeout(Promise.resolve().then(() => check(env)), CHECK_TIMEOUT_MS));
      reason = "its availability check returned false";
    } catch (error) {
      reason = `its availability check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const now = this.#now();
    if (available) {
      this.#lastGood.set(check, now);
      const result = { available: true, checkedAt: now };
      this.#results.set(check, result);
      return result;
    }
    const lastGood = this.#lastGood.get(check);
    if (lastGood !== undefined && now - lastGood < CHECK_FAILURE_GRACE_MS) {
      console.warn(`availability check failed within the grace window, treating as transient: ${reason}`);
      return { available: true, checkedAt: now };
    }
    const result = { available: false, reason, checkedAt: now };
    this.#results.set(check, result);
    return result;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}

/** The isolate-wide cache every request shares. */
export const availability = new AvailabilityCache();
