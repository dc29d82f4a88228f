/** Query-string values of the audit routes: times and the opaque page cursor. */

import type { AuditCursor } from "./list-audit.ts";
import type { ShardPosition } from "./list-audit-sharded.ts";

const EPOCH_MS = /^\d{1,15}$/;
// A calendar date, optionally with a time and a zone: 2026-05-01, 2026-05-01T12:00:00.5Z, ...+02:00.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Epoch ms from an ISO 8601 time or an epoch-milliseconds number; undefined when it is neither. */
export function parseTimeParam(value: string): number | undefined {
  if (EPOCH_MS.test(value)) return Number(value);
  if (!ISO_8601.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export const TIME_PARAM_HINT = "must be an ISO 8601 time such as 2026-05-01T12:00:00Z, or epoch milliseconds";

/**
 * The cursor as the client sees it: base64url of `[at, tie]`. Opaque so clients pass it back
 * as it is and the order it encodes can change; it grants nothing, since every query is still
 * scoped to the caller's key.
 */
export function encodeCursor(cursor: AuditCursor): string {
  return btoa(JSON.stringify([cursor.at, cursor.tie]))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The cursor `encodeCursor` made, or undefined for anything else. */
export function decodeCursor(text: string): AuditCursor | undefined {
  try {
    const value: unknown = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [at, tie] = value as unknown[];
    if (typeof at !== "number" || !Number.isSafeInteger(at)) return undefined;
    // A rid (audit_records), or the TEXT id of the table before migration 0005.
    if (typeof tie === "number" && Number.isSafeInteger(tie)) return { at, tie };
    if (typeof tie === "string" && tie !== "") return { at, tie };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * A sharded listing's cursor (list-audit-sharded.ts): base64url of `{"shards":[...]}`, one
 * position per shard ("start", [at, tie] or "done"). As opaque, and granting as little, as one
 * shard's.
 */
export function encodeShardCursor(positions: readonly ShardPosition[]): string {
  const shards = positions.map((p) => (typeof p === "string" ? p : [p.at, p.tie]));
  return btoa(JSON.stringify({ shards })).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The positions `encodeShardCursor` made, or undefined for anything else. */
export function decodeShardCursor(text: string): ShardPosition[] | undefined {
  try {
    const value: unknown = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
    const shards = (value as { shards?: unknown } | null)?.shards;
    if (!Array.isArray(shards) || shards.length === 0 || shards.length > 64) return undefined;
    const positions: ShardPosition[] = [];
    for (const item of shards as unknown[]) {
      if (item === "start" || item === "done") positions.push(item);
      else if (Array.isArray(item)) {
        const cursor = decodeCursor(btoa(JSON.stringify(item)));
        if (cursor === undefined) return undefined;
        positions.push(cursor);
      } else return undefined;
    }
    return positions;
  } catch {
    return undefined;
  }
}
