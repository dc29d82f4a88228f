/**
 * Run cleanup: a finished Run object deletes its own storage RUN_RETENTION_DAYS after it finished
 * (an alarm it sets then), and the daily cron deletes the runs index rows as old, in chunks, by
 * an index range rather than a scan of the table.
 */

import {
  abortAllDurableObjects,
  createExecutionContext,
  createScheduledController,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RUNS_TABLE } from "../../src/agent/run-index.ts";
import { deleteExpiredRuns, RUNS_UPDATED_INDEX } from "../../src/agent/run-retention.ts";
import { RUN_EVENTS_TABLE, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE } from "../../src/agent/run-schema.ts";
import worker from "../../src/index.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel } from "../support/model-script.ts";
import { runUntil, startRun } from "../support/runs.ts";

const DAY_MS = 86_400_000;
const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const stubOf = (id: string) => env.RUNS.get(env.RUNS.idFromName(id));
/** The object's own tables (SQLite's and Cloudflare's internal ones aside). */
const tablesOf = (state: DurableObjectState): string[] =>
  state.storage.sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`)
    .toArray()
    .map((row) => row.name);

async function finishedRun(text: string): Promise<{ id: string; updatedAt: number }> {
  const script = await scriptModel([{ content: text }]);
  const run = await runUntil((await startRun({ input: `${marker(script)} ${text}` })).id, FINISHED);
  expect(run.status).toBe("completed");
  return { id: run.id, updatedAt: Date.parse((run as typeof run & { updated_at: string }).updated_at) };
}

describe("a finished Run object", () => {
  it("sets its alarm to the end of its retention when it finishes, and keeps its run when woken early", async () => {
    const { id, updatedAt } = await finishedRun("kept");
    const alarm = await runInDurableObject(stubOf(id), (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBe(updatedAt + 30 * DAY_MS);
    expect(await runDurableObjectAlarm(stubOf(id))).toBe(true);
    expect((await api(`/v1/runs/${id}`)).status).toBe(200);
    // Woken before its time, it only sets the alarm again.
    expect(await runInDurableObject(stubOf(id), (_instance, state) => state.storage.getAlarm())).toBe(updatedAt + 30 * DAY_MS);
  });

  it("deletes its whole storage once the retention has passed; the run then answers 404 UNKNOWN_RUN", async () => {
    const { id } = await finishedRun("forgotten");
    // As if it had finished 31 days ago: the record is rewritten, and the instance (which keeps
    // a copy in memory) restarted.
    await runInDurableObject(stubOf(id), (_instance, state) => {
      state.storage.sql.exec(`UPDATE ${RUN_RECORD_TABLE} SET record = json_set(record, '$.updatedAt', ?)`, Date.now() - 31 * DAY_MS);
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stubOf(id))).toBe(true);

    const gone = await api(`/v1/runs/${id}`);
    expect(gone.status).toBe(404);
    expect(await json<{ error_code: string }>(gone)).toMatchObject({ error_code: "UNKNOWN_RUN" });
    expect((await api(`/v1/runs/${id}/events`)).status).toBe(404);
    const left = await runInDurableObject(stubOf(id), async (_instance, state) => ({ alarm: await state.storage.getAlarm(), tables: tablesOf(state) }));
    // Nothing is left, not even the empty tables: asking about the run afterwards wrote none.
    expect(left).toEqual({ alarm: null, tables: [] });
  });
});

describe("a Run object asked about a run it never had", () => {
  it("answers 404 UNKNOWN_RUN to a read, the events and a cancel, and leaves no storage behind", async () => {
    const id = crypto.randomUUID();
    for (const [path, method] of [
      [`/v1/runs/${id}`, "GET"],
      [`/v1/runs/${id}/events`, "GET"],
      [`/v1/runs/${id}/cancel`, "POST"],
    ] as const) {
      const response = await api(path, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await json<{ error_code: string }>(response)).toMatchObject({ error_code: "UNKNOWN_RUN" });
    }
    expect(await runInDurableObject(stubOf(id), async (_instance, state) => ({ alarm: await state.storage.getAlarm(), tables: tablesOf(state) }))).toEqual({
      alarm: null,
      tables: [],
    });
  });

  it("makes its tables with the run's first write", async () => {
    const { id } = await finishedRun("tables");
    expect(await runInDurableObject(stubOf(id), (_instance, state) => tablesOf(state))).toEqual(
      [RUN_EVENTS_TABLE, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE].sort(),
    );
  });
});

describe("deleteExpiredRuns (the daily cron)", () => {
  const row = (id: string, updatedAt: number, status = "completed") =>
    env.DB.prepare(
      `INSERT INTO ${RUNS_TABLE} (id, key_id, session_id, parent_run_id, model, status, turns, tool_calls, prompt_tokens, completion_tokens, total_tokens, created_at, updated_at) VALUES (?, 'k-ret', 's-ret', NULL, 'm', ?, 1, 0, 0, 0, 0, ?, ?)`,
    ).bind(id, status, updatedAt - 1_000, updatedAt);

  it("deletes rows not updated within the retention, in chunks, and keeps recent ones", async () => {
    const now = Date.now();
    const old = Array.from({ length: 2_005 }, (_, i) => row(`ret-old-${i}`, now - 31 * DAY_MS - i));
    await env.DB.batch([...old, row("ret-stale-running", now - 40 * DAY_MS, "running"), row("ret-recent", now - 29 * DAY_MS)]);
    // 2,006 rows at 1,000 a DELETE: three chunks.
    expect(await deleteExpiredRuns(env.DB, 30, now)).toBe(2_006);
    const { results } = await env.DB.prepare(`SELECT id FROM ${RUNS_TABLE} WHERE key_id = 'k-ret'`).all<{ id: string }>();
    expect(results.map((r) => r.id)).toEqual(["ret-recent"]);
    expect(await deleteExpiredRuns(env.DB, 30, now)).toBe(0);
  });

  it("runs from the Worker's scheduled handler with RUN_RETENTION_DAYS", async () => {
    const now = Date.now();
    await env.DB.batch([row("cron-old", now - 31 * DAY_MS), row("cron-recent", now - 29 * DAY_MS)]);
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: now, cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const { results } = await env.DB.prepare(`SELECT id FROM ${RUNS_TABLE} WHERE id LIKE 'cron-%'`).all<{ id: string }>();
    expect(results.map((r) => r.id)).toEqual(["cron-recent"]);
  });

  it("finds each chunk's rows through the updated_at index, not by scanning the table", async () => {
    const { results } = await env.DB.prepare(
      `EXPLAIN QUERY PLAN DELETE FROM ${RUNS_TABLE} WHERE rowid IN (SELECT rowid FROM ${RUNS_TABLE} WHERE updated_at < ? LIMIT ?)`,
    )
      .bind(Date.now(), 1_000)
      .all<{ detail: string }>();
    const details = results.map((r) => r.detail);
    expect(
      details.some((d) => d.startsWith(`SEARCH ${RUNS_TABLE} USING COVERING INDEX ${RUNS_UPDATED_INDEX} (updated_at<?)`)),
      details.join(" | "),
    ).toBe(true);
    expect(
      details.filter((d) => d.startsWith(`SCAN ${RUNS_TABLE}`)),
      details.join(" | "),
    ).toEqual([]);
  });

  it("refuses a retention that is not a positive number", async () => {
    await expect(deleteExpiredRuns(env.DB, 0, Date.now())).rejects.toThrow(RangeError);
  });
});
