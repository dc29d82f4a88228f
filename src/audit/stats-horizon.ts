/**
 * How far back D1 holds every audit record. Stats are SQL over D1 alone: the daily cron moves
 * records older than AUDIT_ARCHIVE_AFTER_DAYS to R2 when AUDIT_ARCHIVE is bound, and deletes them
 * after AUDIT_RETENTION_DAYS, so a window reaching further back counts only part of its calls.
 * The stats answer says so rather than letting a short count pass for a quiet week.
 */
import type { GatewayConfig } from "../config/config.ts";

const DAY_MS = 86_400_000;

/**
 * The earliest time from which D1 is certain to hold every record at `now`. The cron may not
 * have run for a day, so older records can still be there; this is the bound, not the edge.
 */
export function d1Horizon(config: Pick<GatewayConfig, "auditArchiveAfterDays" | "auditRetentionDays">, archived: boolean, now: number): number {
  const days = archived ? Math.min(config.auditArchiveAfterDays, config.auditRetentionDays) : config.auditRetentionDays;
  return now - days * DAY_MS;
}
