/**
 * The log entries of a catch-up's skipped firings (schedule-object.ts, "Catch-up"): each is
 * logged so a person sees why no run started at that time, and those beyond the walk's cap are
 * summed up in the last note rather than walked, so a long outage costs no more than a short one.
 */
import { firingEntry } from "./schedule-firing.ts";
import type { DueFirings } from "./schedule-timing.ts";
import type { FiringEntry } from "./schedule-types.ts";

/** The `skipped` entries of `due`'s firings before the one that starts, oldest first. */
export function missedFirings(due: DueFirings): FiringEntry[] {
  const missed = due.skipped.map((at) =>
    firingEntry(at, "skipped", { note: "missed: the schedule's object did not run at this time; only the latest missed firing starts (catch-up)" }),
  );
  if (due.moreSkipped && missed.length > 0) {
    const last = missed[missed.length - 1];
    if (last !== undefined) last.note = `${last.note ?? ""}; further firings before ${new Date(due.fire).toISOString()} were skipped too`;
  }
  return missed;
}
