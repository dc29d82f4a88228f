/**
 * Exponential backoff between attempts, as the gateway's users configure it: `backoff_base`
 * growing by a factor each time (by default 1.5 s and 1.5: 1.5, 2.25, 3.375 s), plus up to 20%
 * jitter so that many calls failing together do not retry together.
 */

export const MAX_JITTER = 0.2;

/** The wait after failed attempt `attempt` (1-based), before jitter. */
export function baseBackoffMs(attempt: number, baseMs: number, factor: number): number {
  return baseMs * factor ** (attempt - 1);
}

/** The wait after failed attempt `attempt`, with jitter from `random` (0 to 1). */
export function backoffMs(attempt: number, baseMs: number, factor: number, random: () => number = Math.random): number {
  return Math.round(baseBackoffMs(attempt, baseMs, factor) * (1 + MAX_JITTER * random()));
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from `now`. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
