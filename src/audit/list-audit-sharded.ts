/**
 * An admin listing over every audit shard (audit-shards.ts): each shard pages on from its own
 * cursor, and the pages merge newest first. A shard whose page stopped early (a bounded scan, or
 * `limit` reached) has only shown what lies above its next cursor, so the merged page keeps only
 * records above every such frontier; a shard whose records were all taken moves on to its own
 * next cursor, so every page makes progress even when it holds no record.
 */

import type { AuditFilters } from "./audit-filters.ts";
import type { AuditRecord } from "./audit-record.ts";
import { type AuditCursor, listAudit } from "./list-audit.ts";
import type { AuditDatabase } from "./write-audit-records.ts";

/** Where each shard's listing resumes: not begun, after a record, or finished. */
export type ShardPosition = "start" | AuditCursor | "done";

export interface ShardedPage {
  records: AuditRecord[];
  /** One position per shard, in shard order; null when every shard is finished. */
  next: ShardPosition[] | null;
}

/** Newest first: positive when `a` comes before `b` in a listing. */
function newer(a: { at: number; tie: number | string }, b: { at: number; tie: number | string }): number {
  if (a.at !== b.at) return a.at - b.at;
  return typeof a.tie === "number" && typeof b.tie === "number" ? a.tie - b.tie : String(a.tie).localeCompare(String(b.tie));
}

/** One merged page of `filters` over `shards`, from `positions` (one per shard; absent: the first page). */
export async function listAuditSharded(
  shards: readonly AuditDatabase[],
  filters: AuditFilters,
  page: { limit: number; positions?: readonly ShardPosition[] },
): Promise<ShardedPage> {
  const positions = page.positions ?? shards.map((): ShardPosition => "start");
  const pages = await Promise.all(
    shards.map((db, i) => {
      const position = positions[i] ?? "start";
      if (position === "done") return { records: [], next: null };
      return listAudit(db, filters, { limit: page.limit, ...(position === "start" ? {} : { cursor: position }) });
    }),
  );
  const frontier = pages.reduce<AuditCursor | undefined>(
    (highest, p) => (p.next !== null && (highest === undefined || newer(p.next, highest) > 0) ? p.next : highest),
    undefined,
  );
  const candidates = pages.flatMap((p, shard) => p.records.map((record) => ({ record, shard, key: { at: record.at, tie: record.rid } })));
  candidates.sort((a, b) => newer(b.key, a.key));
  const taken = candidates.filter((c) => frontier === undefined || newer(c.key, frontier) > 0).slice(0, page.limit);

  const next = pages.map((p, shard): ShardPosition => {
    const position = positions[shard] ?? "start";
    if (position === "done") return "done";
    const mine = taken.filter((c) => c.shard === shard);
    if (mine.length === p.records.length) return p.next ?? "done";
    const last = mine.at(-1);
    return last === undefined ? position : last.key;
  });
  return { records: taken.map((c) => c.record), next: next.every((p) => p === "done") ? null : next };
}
