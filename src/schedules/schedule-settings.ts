/**
 * The limits of schedules, from [vars] with defaults: how often a schedule may fire at most, and
 * how many schedules one key may have.
 */
import { whole } from "../agent/run-settings.ts";

/** The default shortest gap between two firings (SCHEDULE_MIN_INTERVAL_SECONDS). */
export const DEFAULT_MIN_INTERVAL_SECONDS = 60;
/** The default number of schedules per key (SCHEDULES_PER_KEY). */
export const DEFAULT_SCHEDULES_PER_KEY = 50;

export interface ScheduleSettings {
  minIntervalSeconds: number;
  perKey: number;
}

/** The settings of schedules under `env`. */
export function scheduleSettings(env: Env): ScheduleSettings {
  return {
    minIntervalSeconds: whole(env, "SCHEDULE_MIN_INTERVAL_SECONDS", DEFAULT_MIN_INTERVAL_SECONDS),
    perKey: whole(env, "SCHEDULES_PER_KEY", DEFAULT_SCHEDULES_PER_KEY),
  };
}
