/**
 * Full-text search over a principal's past runs (session_search), in D1's FTS5
 * (migrations/0017_run_questions_and_search.sql): one document per finished run, written when it
 * finishes, holding its user messages, its tool results (answers to its questions included) and
 * its final answer, each labelled. A document is found only by the key that ran it, and only
 * within RUN_RETENTION_DAYS, and the daily cron deletes it with the run's `runs` row (run-retention.ts).
 *
 * A model's query is never handed to FTS5 as syntax: each of its words becomes a quoted string
 * (`"..."`, inner quotes doubled), so `NEAR(`, `*`, `-`, `:` or an unbalanced quote are text to
 * find, never an error, and every word must be present (FTS5's implicit AND).
 */
import { messageText as textOf } from "./message-text.ts";
import type { Message, RunRecord } from "./run-types.ts";

export const RUN_SEARCH_TABLE = "run_search";
export const RUN_SEARCH_DOCS_TABLE = "run_search_docs";

/** Characters kept of one message, and of a run's whole document. */
const MAX_PART_CHARS = 4_000;
const MAX_DOC_CHARS = 64_000;
/** Words of a query that count; the rest are dropped (the tool's schema caps the text). */
export const MAX_QUERY_TERMS = 12;
/** Tokens around a match in a snippet (FTS5 caps it at 64). */
const SNIPPET_TOKENS = 24;

/** The run's searchable text: each part labelled, capped per part and in all (collected, joined once). */
export function searchDocument(record: Pick<RunRecord, "answer">, messages: readonly Message[]): string {
  const parts: string[] = [];
  let size = 0;
  const add = (label: string, text: string) => {
    if (text.trim() === "" || size >= MAX_DOC_CHARS) return;
    const part = `${label}: ${text.slice(0, MAX_PART_CHARS)}`.slice(0, MAX_DOC_CHARS - size);
    parts.push(part);
    size += part.length + 1;
  };
  for (const message of messages) {
    if (message.role === "user") add("User", textOf(message.content));
    else if (message.role === "tool") add("Tool result", textOf(message.content));
  }
  if (record.answer !== null) add("Answer", record.answer);
  return parts.join("\n");
}

/**
 * Writes the finished run's document, replacing any earlier one of the run; never rejects (the
 * run's end does not wait on its search index: a failed write is logged, and that run is not found).
 */
export async function indexRun(db: D1Database, record: RunRecord, messages: readonly Message[]): Promise<void> {
  const body = searchDocument(record, messages);
  try {
    await db.batch([
      db.prepare(`DELETE FROM ${RUN_SEARCH_TABLE} WHERE rowid IN (SELECT id FROM ${RUN_SEARCH_DOCS_TABLE} WHERE run_id = ?)`).bind(record.id),
      db
        .prepare(
          `INSERT INTO ${RUN_SEARCH_DOCS_TABLE} (run_id, key_id, session_id, status, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
        )
        .bind(record.id, record.keyId, record.sessionId, record.status, record.updatedAt),
      db.prepare(`INSERT INTO ${RUN_SEARCH_TABLE} (rowid, body) SELECT id, ? FROM ${RUN_SEARCH_DOCS_TABLE} WHERE run_id = ?`).bind(body, record.id),
    ]);
  } catch (error) {
    console.error(`run ${record.id}: search index write failed: ${String(error)}`);
  }
}

/** The model's words as an FTS5 query of quoted strings, or undefined when no word is left. */
export function ftsQueryOf(text: string): string | undefined {
  const terms = text
    .split(/\s+/u)
    .map((term) => term.replace(/[\p{Cc}]/gu, ""))
    .filter((term) => /[\p{L}\p{N}]/u.test(term))
    .slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" ");
}

/** One run found. */
export interface RunHit {
  run_id: string;
  session_id: string;
  status: string;
  updated_at: number;
  snippet: string;
}

/**
 * `keyId`'s runs whose document has every word of `query`, best first, changed at or after
 * `since` (epoch ms). The key's filter is in the same statement as the match: another key's
 * document is never read out.
 */
export async function searchRuns(db: D1Database, search: { keyId: string; query: string; since: number; limit: number }): Promise<RunHit[]> {
  const { results } = await db
    .prepare(
      `SELECT d.run_id AS run_id, d.session_id AS session_id, d.status AS status, d.updated_at AS updated_at,
              snippet(${RUN_SEARCH_TABLE}, 0, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet
       FROM ${RUN_SEARCH_TABLE} JOIN ${RUN_SEARCH_DOCS_TABLE} d ON d.id = ${RUN_SEARCH_TABLE}.rowid
       WHERE ${RUN_SEARCH_TABLE} MATCH ? AND d.key_id = ? AND d.updated_at >= ?
       ORDER BY rank LIMIT ?`,
    )
    .bind(search.query, search.keyId, search.since, search.limit)
    .all<RunHit>();
  return results;
}

/** Documents per DELETE of the retention delete. */
const DELETE_CHUNK = 500;

/**
 * Deletes the documents of runs last changed before `cutoff`, a chunk at a time (the FTS5 rows,
 * then their `run_search_docs` rows, the same oldest ids each time); returns how many. A failure
 * between the two leaves only docs rows whose text is gone, which the next run deletes.
 */
export async function deleteExpiredSearch(db: Pick<D1Database, "prepare">, cutoff: number, maxChunks = 200): Promise<number> {
  const oldest = `SELECT id FROM ${RUN_SEARCH_DOCS_TABLE} WHERE updated_at < ? ORDER BY updated_at, id LIMIT ?`;
  const text = db.prepare(`DELETE FROM ${RUN_SEARCH_TABLE} WHERE rowid IN (${oldest})`);
  const docs = db.prepare(`DELETE FROM ${RUN_SEARCH_DOCS_TABLE} WHERE id IN (${oldest})`);
  let deleted = 0;
  for (let i = 0; i < maxChunks; i++) {
    await text.bind(cutoff, DELETE_CHUNK).run();
    const { meta } = await docs.bind(cutoff, DELETE_CHUNK).run();
    deleted += meta.changes;
    if (meta.changes < DELETE_CHUNK) break;
  }
  return deleted;
}
