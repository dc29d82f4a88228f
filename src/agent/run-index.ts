/**
 * The D1 index of runs (migrations/0007_agent_runs.sql): one row per run, written by its Run
 * object at every status change, so runs can be listed across objects and token usage summed
 * per key. The object is the truth; a failed write is logged and healed by the next change.
 */
import type { RunRecord, RunStatus } from "./run-types.ts";

export const RUNS_TABLE = "runs";

export interface RunRow {
  id: string;
  key_id: string;
  session_id: string;
  parent_run_id: string | null;
  model: string;
  status: RunStatus;
  turns: number;
  tool_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  created_at: number;
  updated_at: number;
}

/** Writes the run's row; never rejects. */
export async function writeRunIndex(db: D1Database, r: RunRecord): Promise<void> {
  try {
    await db
      .prepare(
        `INSERT INTO ${RUNS_TABLE} (id, key_id, session_id, parent_run_id, model, status, turns, tool_calls, prompt_tokens, completion_tokens, total_tokens, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, turns = excluded.turns, tool_calls = excluded.tool_calls, prompt_tokens = excluded.prompt_tokens,
           completion_tokens = excluded.completion_tokens, total_tokens = excluded.total_tokens, updated_at = excluded.updated_at
         WHERE excluded.updated_at >= ${RUNS_TABLE}.updated_at`,
      )
      .bind(
        r.id,
        r.keyId,
        r.sessionId,
        r.parentRunId ?? null,
        r.model.name,
        r.status,
        r.turns,
        r.toolCalls,
        r.usage.promptTokens,
        r.usage.completionTokens,
        r.usage.totalTokens,
        r.createdAt,
        r.updatedAt,
      )
      .run();
  } catch (error) {
    console.error(`run ${r.id}: D1 index write failed (${r.status}): ${String(error)}`);
  }
}

export interface RunFilter {
  /** Only this key's runs; undefined for an admin, who sees all. */
  keyId: string | undefined;
  status: RunStatus | undefined;
  sessionId: string | undefined;
  limit: number;
}

/** Runs newest first. */
export async function listRuns(db: D1Database, filter: RunFilter): Promise<RunRow[]> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (filter.keyId !== undefined) where.push("key_id = ?"), params.push(filter.keyId);
  if (filter.sessionId !== undefined) where.push("session_id = ?"), params.push(filter.sessionId);
  if (filter.status !== undefined) where.push("status = ?"), params.push(filter.status);
  const sql = `SELECT * FROM ${RUNS_TABLE}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY created_at DESC, id LIMIT ?`;
  const { results } = await db
    .prepare(sql)
    .bind(...params, filter.limit)
    .all<RunRow>();
  return results;
}

/** Tokens a key's runs used (those the upstream reported). */
export async function keyUsage(
  db: D1Database,
  keyId: string,
): Promise<{ runs: number; prompt_tokens: number; completion_tokens: number; total_tokens: number }> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS runs, COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(completion_tokens), 0) AS completion_tokens, COALESCE(SUM(total_tokens), 0) AS total_tokens FROM ${RUNS_TABLE} WHERE key_id = ?`,
    )
    .bind(keyId)
    .first<{ runs: number; prompt_tokens: number; completion_tokens: number; total_tokens: number }>();
  return row ?? { runs: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}
