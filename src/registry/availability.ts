/**
 * Whether a tool can work right now: its required env vars are set (all of `requiresEnv`, one of
 * `requiresAnyEnv`) and its check passes.
 *
 * Check results are cached for 30 s (the original's TTL) at two levels: this isolate's memory,
 * keyed by check function (a check shared by many tools runs once), and KV, keyed by tool, so
 * other isolates and restarts reuse a recent result. KV's minimum expirationTtl is 60 s and its
 * writes propagate eventually, so the value carries its check time and freshness is judged from
 * that, never from the key's expiry: a result older than 30 s is never used, whichever level
 * holds it (docs/storage.md states the bound).
 *
 * The original's flake grace holds: a failure within 60 s of the last success still reports
 * available and is not cached (reference §2.6, the fix for tools vanishing on a flaky probe).
 * Concurrent requests share one run of a due check. A check that throws, or that outlives its
 * own short timeout, counts as unavailable.
 */

import { sanitizeErrorText } from "../execution/sanitize-error.ts";
import { waitForOtherRequest } from "../runtime/wait-for-other-request.ts";
import { availabilityKey } from "../storage/keys.ts";
import type { AvailabilityCheck, ToolEntry } from "./types.ts";

export const CHECK_TTL_MS = 30_000;
export const CHECK_FAILURE_GRACE_MS = 60_000;
export const CHECK_TIMEOUT_MS = 5_000;
/**
 * How long a request waits for another request's refresh of the same check: longer than a
 * healthy one takes (a KV read, the check with its timeout, a KV write), so a waiter gives up
 * only on a refresh whose request is gone (src/runtime/wait-for-other-request.ts).
 */
const REFRESH_WAIT_MS = CHECK_TIMEOUT_MS + 2_000;
/** KV's minimum; the value's own check time decides freshness. */
const KV_TTL_SECONDS = 120;

export interface Availability {
  available: boolean;
  /** Why the tool is unavailable (missing vars, false check, the check's error). */
  reason?: string;
  /** When the check that decided this ran (epoch ms); absent when nothing needed checking. */
  checkedAt?: number;
}

/** The JSON value stored under `avail:<tool>`. */
export interface StoredAvailability {
  available: boolean;
  reason?: string;
  checkedAt: number;
  lastGoodAt?: number;
}

/** Where answers came from, for the benchmark's hit rate and for operators. */
export interface AvailabilityStats {
  memoryHits: number;
  kvHits: number;
  probes: number;
}

const ALWAYS_AVAILABLE: Availability = { available: true };

function isUnset(env: Env, name: string): boolean {
  const value: unknown = Reflect.get(env, name);
  return value === undefined || value === null || value === "";
}

/** Names from `requiresEnv` that are unset or empty in this environment. */
export function missingEnv(entry: ToolEntry, env: Env): string[] {
  return entry.requiresEnv.filter((name) => isUnset(env, name));
}

/** Why the tool's env requirements are not met (all of `requiresEnv`, one of `requiresAnyEnv`), or undefined. */
export function envProblem(entry: ToolEntry, env: Env): string | undefined {
  const missing = entry.requiresEnv.length === 0 ? [] : missingEnv(entry, env);
  if (missing.length > 0) return `missing required environment variable${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}`;
  const anyOf = entry.requiresAnyEnv;
  if (anyOf === undefined || anyOf.length === 0) return undefined;
  if (anyOf.some((name) => !isUnset(env, name))) return undefined;
  return `missing environment variable: set one of ${anyOf.join(", ")}`;
}

function hasEnvRequirements(entry: ToolEntry): boolean {
  return entry.requiresEnv.length > 0 || (entry.requiresAnyEnv?.length ?? 0) > 0;
}

export class AvailabilityCache {
  readonly #results = new Map<AvailabilityCheck, Availability & { checkedAt: number }>();
  readonly #lastGood = new Map<AvailabilityCheck, number>();
  readonly #inFlight = new Map<AvailabilityCheck, Promise<Availability>>();
  readonly #now: () => number;
  readonly #stats: AvailabilityStats = { memoryHits: 0, kvHits: 0, probes: 0 };

  readonly #refreshWaitMs: number;

  // Date is looked up per call, not captured: tests move the clock with vi.setSystemTime.
  constructor(now: () => number = () => Date.now(), refreshWaitMs = REFRESH_WAIT_MS) {
    this.#now = now;
    this.#refreshWaitMs = refreshWaitMs;
  }

  /**
   * Availability when it is known without I/O (no check, or a fresh result in memory), else
   * undefined. Listing 500 tools should not cost 500 promises.
   */
  known(entry: ToolEntry, env: Env): Availability | undefined {
    const refused = entry.gate?.();
    if (refused !== undefined) return { available: false, reason: refused };
    if (hasEnvRequirements(entry) && envProblem(entry, env) !== undefined) return undefined;
    if (entry.check === undefined) return ALWAYS_AVAILABLE;
    const cached = this.#results.get(entry.check);
    if (cached === undefined || this.#now() - cached.checkedAt >= CHECK_TTL_MS) return undefined;
    this.#stats.memoryHits += 1;
    return cached;
  }

  /** Availability of one tool, probing its check only when no level holds a fresh result. */
  async of(entry: ToolEntry, env: Env): Promise<Availability> {
    const refused = entry.gate?.();
    if (refused !== undefined) return { available: false, reason: refused };
    const problem = envProblem(entry, env);
    if (problem !== undefined) return { available: false, reason: problem };
    const check = entry.check;
    if (check === undefined) return ALWAYS_AVAILABLE;
    const known = this.known(entry, env);
    if (known !== undefined) return known;
    const shared = this.#inFlight.get(check);
    if (shared !== undefined) {
      const waited = await waitForOtherRequest(shared, this.#refreshWaitMs);
      if (waited.settled) return waited.value;
      // The request that started it is gone and will never finish it: probe here instead.
      if (this.#inFlight.get(check) === shared) this.#inFlight.delete(check);
    }
    const pending = this.#refresh(entry.name, check, env, false).finally(() => {
      if (this.#inFlight.get(check) === pending) this.#inFlight.delete(check);
    });
    this.#inFlight.set(check, pending);
    return pending;
  }

  /** Probes now, ignoring both cache levels, and stores the result in both (an admin's re-check). */
  async recheck(entry: ToolEntry, env: Env): Promise<Availability> {
    const problem = envProblem(entry, env);
    if (problem !== undefined) return { available: false, reason: problem };
    if (entry.check === undefined) return ALWAYS_AVAILABLE;
    this.#results.delete(entry.check);
    return this.#refresh(entry.name, entry.check, env, true);
  }

  /** Forgets this isolate's results (KV keeps its own, judged by their check time). */
  invalidate(): void {
    this.#results.clear();
    this.#lastGood.clear();
  }

  stats(): AvailabilityStats {
    return { ...this.#stats };
  }

  async #refresh(tool: string, check: AvailabilityCheck, env: Env, force: boolean): Promise<Availability> {
    const kv = (env as Partial<Env>).KV;
    const stored = kv === undefined ? null : await readStored(kv, tool);
    if (stored?.lastGoodAt !== undefined) this.#lastGood.set(check, Math.max(stored.lastGoodAt, this.#lastGood.get(check) ?? 0));
    if (!force && stored !== null && this.#now() - stored.checkedAt < CHECK_TTL_MS) {
      this.#stats.kvHits += 1;
      const result = { available: stored.available, checkedAt: stored.checkedAt, ...(stored.reason === undefined ? {} : { reason: stored.reason }) };
      this.#results.set(check, result);
      return result;
    }
    this.#stats.probes += 1;
    const { available, reason } = await probe(check, env);
    const now = this.#now();
    if (available) {
      this.#lastGood.set(check, now);
      const result = { available: true, checkedAt: now };
      this.#results.set(check, result);
      await writeStored(kv, tool, { available: true, checkedAt: now, lastGoodAt: now });
      return result;
    }
    const lastGood = this.#lastGood.get(check);
    if (lastGood !== undefined && now - lastGood < CHECK_FAILURE_GRACE_MS) {
      console.warn(`availability check of '${tool}' failed within the grace window, treating as transient: ${reason}`);
      return { available: true, checkedAt: now };
    }
    const result = { available: false, reason, checkedAt: now };
    this.#results.set(check, result);
    await writeStored(kv, tool, { available: false, reason, checkedAt: now, ...(lastGood === undefined ? {} : { lastGoodAt: lastGood }) });
    return result;
  }
}

async function probe(check: AvailabilityCheck, env: Env): Promise<{ available: boolean; reason: string }> {
  try {
    const ok = Boolean(
      await withTimeout(
        Promise.resolve().then(() => check(env)),
        CHECK_TIMEOUT_MS,
      ),
    );
    return { available: ok, reason: "its availability check returned false" };
  } catch (error) {
    // The reason is shown to keys and stored in KV: no credentials, no markup, bounded.
    return { available: false, reason: sanitizeErrorText(`its availability check failed: ${error instanceof Error ? error.message : String(error)}`) };
  }
}

async function readStored(kv: KVNamespace, tool: string): Promise<StoredAvailability | null> {
  try {
    return await kv.get<StoredAvailability>(availabilityKey(tool), "json");
  } catch (error) {
    // The shared level is an optimisation; without it every isolate simply probes.
    console.warn(`reading cached availability of '${tool}' failed: ${String(error)}`);
    return null;
  }
}

async function writeStored(kv: KVNamespace | undefined, tool: string, value: StoredAvailability): Promise<void> {
  if (kv === undefined) return;
  try {
    await kv.put(availabilityKey(tool), JSON.stringify(value), { expirationTtl: KV_TTL_SECONDS });
  } catch (error) {
    console.warn(`caching availability of '${tool}' failed: ${String(error)}`);
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
