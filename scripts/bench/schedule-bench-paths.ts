/** The schedule-firing scenario's bench-only routes (schedule-bench.ts serves them), shared with the scenario in Node. */

/** POST: fire the schedule now and answer when its run has ended. */
export const SCHEDULE_FIRE_PATH = /^\/__bench\/schedules\/([0-9a-f-]{36})\/fire$/;
export const scheduleFirePath = (id: string): string => `/__bench/schedules/${id}/fire`;
/** POST: POST /v1/runs with this body and answer when that run has ended. */
export const RUN_WAIT_PATH = "/__bench/runs/wait";
