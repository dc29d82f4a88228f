/** The overview's figures, shared by the reader of audit rows (overview-stats.ts) and of hourly rollups (overview-rollups.ts). */
import type { AuditStats } from "../audit/audit-stats.ts";

export interface Interval {
  /** Epoch ms the interval starts at. */
  start: number;
  calls: number;
  errors: number;
}

export interface ErrorCodeCount {
  code: string;
  calls: number;
}

export interface Overview {
  since: number;
  until: number;
  intervalMs: number;
  intervals: Interval[];
  stats: AuditStats;
  topErrorCodes: ErrorCodeCount[];
}
