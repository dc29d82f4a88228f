/**
 * When a schedule fires. Cron expressions are parsed by croner (5 fields, or 6 with seconds),
 * read in the schedule's IANA time zone, so "0 9 * * 1-5" in Europe/Berlin follows its DST
 * changes; an interval counts whole steps from the schedule's anchor, so firing times never
 * drift with alarm latency.
 */
import { Cron } from "croner";
import type { ScheduleTrigger } from "./schedule-types.ts";

/** Upcoming firings checked for the shortest gap: a cron's dense part shows in its first firings, since fields repeat contiguously. */
const GAP_SAMPLE = 60;

/** Whether `timezone` is an IANA zone this runtime knows (Intl is the runtime's own tz database). */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** A parsed cron expression, or croner's reason it is not one. */
export function parseCron(expression: string, timezone: string): { ok: true; cron: Cron } | { ok: false; message: string } {
  try {
    return { ok: true, cron: new Cron(expression, { paused: true, timezone, mode: "5-or-6-parts" }) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** The first firing strictly after `afterMs`, or null when the expression never fires again. */
export function nextFiring(trigger: ScheduleTrigger, timezone: string, anchorAt: number, afterMs: number): number | null {
  if (trigger.kind === "interval") {
    const step = trigger.everySeconds * 1000;
    return anchorAt + (Math.floor(Math.max(0, afterMs - anchorAt) / step) + 1) * step;
  }
  const parsed = parseCron(trigger.cron, timezone);
  if (!parsed.ok) return null;
  return parsed.cron.nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** The shortest gap (seconds) between the trigger's next firings after `fromMs`; Infinity for fewer than two. */
export function shortestGapSeconds(trigger: ScheduleTrigger, timezone: string, fromMs: number): number {
  if (trigger.kind === "interval") return trigger.everySeconds;
  const parsed = parseCron(trigger.cron, timezone);
  if (!parsed.ok) return Number.POSITIVE_INFINITY;
  const runs = parsed.cron.nextRuns(GAP_SAMPLE, new Date(fromMs)).map((d) => d.getTime());
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < runs.length; i++) shortest = Math.min(shortest, ((runs[i] ?? 0) - (runs[i - 1] ?? 0)) / 1000);
  return shortest;
}

/** The latest firing at or before `nowMs`, or null when there was none. */
function latestFiring(trigger: ScheduleTrigger, timezone: string, anchorAt: number, nowMs: number): number | null {
  if (trigger.kind === "interval") {
    const step = trigger.everySeconds * 1000;
    return nowMs < anchorAt ? null : anchorAt + Math.floor((nowMs - anchorAt) / step) * step;
  }
  const parsed = parseCron(trigger.cron, timezone);
  return parsed.ok ? (parsed.cron.previousRuns(1, new Date(nowMs + 1))[0]?.getTime() ?? null) : null;
}

/** The catch-up at an alarm: the one firing to start (the latest due), those skipped before it, and the next after now. */
export interface DueFirings {
  fire: number;
  /** Skipped firing times, oldest first, at most `cap` of them. */
  skipped: number[];
  /** Skipped firings beyond those listed (not walked one by one). */
  moreSkipped: boolean;
  next: number | null;
}

/**
 * The firings due at `nowMs` from `nextAt` on (undefined when none is): at most one starts, the
 * latest, and the others are skipped. Walks at most `cap` firings, so a long outage costs no more
 * than a short one.
 */
export function dueFirings(trigger: ScheduleTrigger, timezone: string, anchorAt: number, nextAt: number, nowMs: number, cap: number): DueFirings | undefined {
  if (nextAt > nowMs) return undefined;
  const walked: number[] = [];
  let at: number | null = nextAt;
  while (at !== null && at <= nowMs && walked.length <= cap) {
    walked.push(at);
    at = nextFiring(trigger, timezone, anchorAt, at);
  }
  const moreSkipped = at !== null && at <= nowMs;
  const fire = moreSkipped ? (latestFiring(trigger, timezone, anchorAt, nowMs) ?? nextAt) : (walked[walked.length - 1] ?? nextAt);
  const skipped = walked.filter((t) => t !== fire).slice(0, cap);
  return { fire, skipped, moreSkipped, next: nextFiring(trigger, timezone, anchorAt, Math.max(fire, nowMs)) };
}
