/** When a finished Run object's storage goes: on the same clock as the runs index rows (run-retention.ts). */
import { loadConfig } from "../config/config.ts";
import type { RunRecord } from "./run-types.ts";

const DAY_MS = 86_400_000;

/** When a finished run's storage is deleted: RUN_RETENTION_DAYS after its last change. */
export const expiresAt = (env: Env, record: RunRecord): number => record.updatedAt + loadConfig(env).runRetentionDays * DAY_MS;
